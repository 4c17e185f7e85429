/**
 * gitleaks' prefilter: one Aho-Corasick pass over the text finds every occurrence of every
 * rule keyword, so a rule's regex only runs where one of its keywords occurs. With ~30
 * keywords the pass costs about as much as reading the text once, instead of one regex
 * pass per rule.
 *
 * The automaton is compiled to a dense ASCII transition table with upper-case letters
 * folded onto lower-case (no `toLowerCase()` copy of the text, whose length can differ from
 * the original for some non-ASCII characters and would shift positions). Keywords
 * containing non-ASCII characters are found with a case-folded `indexOf` fallback.
 */
const ALPHABET = 128;

export class KeywordPrefilter {
  readonly keywords: readonly string[];
  /**
   * (state << 7) | char → next state, with bit 15 set when that state has outputs: one
   * load per character decides both where to go and whether to report.
   */
  readonly #delta: Uint16Array;
  /** Keyword indices that end at each state (own output plus suffix outputs). */
  readonly #outputs: Int32Array[];
  readonly #nonAscii: number[] = [];

  constructor(keywords: Iterable<string>) {
    this.keywords = [...new Set([...keywords].map((k) => k.toLowerCase()).filter((k) => k.length > 0))];
    const goto: Map<number, number>[] = [new Map()];
    const own: number[][] = [[]];
    this.keywords.forEach((kw, index) => {
      if ([...kw].some((c) => c.charCodeAt(0) >= ALPHABET)) {
        this.#nonAscii.push(index);
        return;
      }
      let state = 0;
      for (let i = 0; i < kw.length; i++) {
        const c = kw.charCodeAt(i);
        let next = goto[state]!.get(c);
        if (next === undefined) {
          next = goto.length;
          goto.push(new Map());
          own.push([]);
          goto[state]!.set(c, next);
        }
        state = next;
      }
      own[state]!.push(index);
    });

    const states = goto.length;
    // 15-bit states keep the table small enough to stay in cache; keyword sets are far smaller.
    if (states > 0x7fff) throw new RangeError('too many keyword characters for the prefilter');
    const delta = new Uint16Array(states * ALPHABET);
    const fail = new Int32Array(states);
    const outputs: Int32Array[] = new Array(states);
    // Breadth-first, so a state's failure target is complete before the state is.
    const queue: number[] = [];
    for (let c = 0; c < ALPHABET; c++) {
      const next = goto[0]!.get(c);
      if (next !== undefined) {
        delta[c] = next;
        fail[next] = 0;
        queue.push(next);
      }
    }
    outputs[0] = Int32Array.from(own[0]!);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      outputs[state] = Int32Array.from([...own[state]!, ...outputs[fail[state]!]!]);
      for (let c = 0; c < ALPHABET; c++) {
        const next = goto[state]!.get(c);
        if (next !== undefined) {
          fail[next] = delta[fail[state]! * ALPHABET + c]!;
          delta[state * ALPHABET + c] = next;
          queue.push(next);
        } else {
          delta[state * ALPHABET + c] = delta[fail[state]! * ALPHABET + c]!;
        }
      }
    }
    // Fold A-Z onto a-z: keywords are lower-case, so upper-case input follows the same edges.
    for (let s = 0; s < states; s++) {
      for (let c = 65; c <= 90; c++) delta[(s << 7) | c] = delta[(s << 7) | (c + 32)]!;
    }
    for (let i = 0; i < delta.length; i++) {
      if (outputs[delta[i]!]!.length > 0) delta[i] = delta[i]! | 0x8000;
    }
    this.#delta = delta;
    this.#outputs = outputs;
  }

  /**
   * Calls `onHit(keywordIndex, start)` for every occurrence, in order of end position.
   * `start` is the offset of the keyword's first character in `text`.
   */
  scan(text: string, onHit: (keywordIndex: number, start: number) => void): void {
    const delta = this.#delta;
    const outputs = this.#outputs;
    const keywords = this.keywords;
    const n = text.length;
    let state = 0;
    for (let i = 0; i < n; i++) {
      // `& 127` folds non-ASCII code units onto ASCII ones instead of branching. That can
      // only add spurious hits (a wider regex window), never lose a real one: Aho-Corasick
      // finds every occurrence whatever precedes it, and keywords here are ASCII.
      const entry = delta[(state << 7) | (text.charCodeAt(i) & 127)]!;
      state = entry & 0x7fff;
      if (entry < 0x8000) continue;
      const out = outputs[state]!;
      for (let k = 0; k < out.length; k++) {
        const index = out[k]!;
        onHit(index, i + 1 - keywords[index]!.length);
      }
    }
    if (this.#nonAscii.length > 0) {
      const lower = text.toLowerCase();
      // toLowerCase keeps length for everything but a handful of characters; when it does not,
      // positions are approximate, which only widens the regex window slightly.
      for (const index of this.#nonAscii) {
        const kw = keywords[index]!;
        for (let at = lower.indexOf(kw); at >= 0; at = lower.indexOf(kw, at + 1)) onHit(index, at);
      }
    }
  }
}
