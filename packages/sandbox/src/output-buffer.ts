/**
 * Keeps the first and last parts of a long output: the head names the command and the
 * first failure, the tail holds the summary; the middle is the least useful.
 */
export class OutputBuffer {
  #head = '';
  #tail = '';
  #total = 0;

  constructor(readonly maxBytes: number) {}

  push(chunk: string): void {
    this.#total += chunk.length;
    const half = Math.floor(this.maxBytes / 2);
    if (this.#head.length < half) {
      const take = half - this.#head.length;
      this.#head += chunk.slice(0, take);
      chunk = chunk.slice(take);
    }
    if (chunk) this.#tail = (this.#tail + chunk).slice(-half);
  }

  get truncated(): boolean {
    return this.#total > this.#head.length + this.#tail.length;
  }

  toString(): string {
    if (!this.truncated) return this.#head + this.#tail;
    const dropped = this.#total - this.#head.length - this.#tail.length;
    return `${this.#head}\n… [${dropped} characters omitted] …\n${this.#tail}`;
  }
}
