const JS_DECL =
  /^\s*export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/;
const JS_LIST = /^\s*export\s+(?:type\s+)?\{([^}]*)\}/;
const CJS = /^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/;
const PY_DEF = /^(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(|^class\s+([A-Za-z]\w*)\b/;
const GO_DECL = /^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+)([A-Z]\w*)/;

/** Language of a path for export detection, or undefined when we do not read its exports. */
function languageOf(file: string): 'js' | 'py' | 'go' | undefined {
  if (/\.(?:[cm]?[jt]sx?)$/.test(file)) return 'js';
  if (/\.py$/.test(file)) return 'py';
  if (/\.go$/.test(file)) return 'go';
  return undefined;
}

/**
 * Exported names declared on the given lines of one file: `export …` and CommonJS `exports.x`
 * in JS/TS, top-level non-underscore `def`/`class` in Python, capitalised top-level names in Go.
 * Each line carries its signature, so a changed parameter list shows as removed + added.
 */
function exportedSymbols(file: string, lines: readonly string[]): Map<string, string> {
  const lang = languageOf(file);
  const out = new Map<string, string>();
  if (!lang) return out;
  for (const line of lines) {
    // The declaration, not the value: `export const TTL = 60` → `= 5` is no API change.
    const signature = line
      .replace(/\s*=(?!>).*$/, '')
      .replace(/\s*\{\s*$/, '')
      .trim();
    if (lang === 'js') {
      const decl = JS_DECL.exec(line) ?? CJS.exec(line);
      if (decl) out.set(decl[1]!, signature);
      const list = JS_LIST.exec(line);
      if (list)
        for (const part of list[1]!.split(',')) {
          const name = part
            .trim()
            .split(/\s+as\s+/)
            .pop()
            ?.trim();
          if (name) out.set(name.replace(/^type\s+/, ''), signature);
        }
    } else if (lang === 'py') {
      const m = PY_DEF.exec(line);
      const name = m?.[1] ?? m?.[2];
      if (name) out.set(name, signature);
    } else {
      const m = GO_DECL.exec(line);
      if (m) out.set(m[1]!, signature);
    }
  }
  return out;
}

export interface ApiChange {
  file: string;
  added: string[];
  removed: string[];
  changed: string[];
}

/** Compares the exports on removed and added lines of one file. */
export function apiChange(file: string, removedLines: readonly string[], addedLines: readonly string[]): ApiChange {
  const before = exportedSymbols(file, removedLines);
  const after = exportedSymbols(file, addedLines);
  const added = [...after.keys()].filter((k) => !before.has(k));
  const removed = [...before.keys()].filter((k) => !after.has(k));
  const changed = [...after.keys()].filter((k) => before.has(k) && before.get(k) !== after.get(k));
  return { file, added, removed, changed };
}
