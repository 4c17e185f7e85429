/**
 * The readings a hostile path string can have somewhere between the model and the disk.
 * The filesystem itself takes bytes literally, but a tool, URL layer, shell or a
 * normalising filesystem may not: `%2e%2e%2f` is `../` after one URL decode, `..\` is a
 * traversal on Windows and in many path libraries, `．．／` is `../` after NFKC. A path is
 * refused when ANY reading is dangerous, so no later layer can turn an accepted path into
 * an escape.
 */
const SLASH_LOOKALIKES = /[\u2044\u2215\u29F8\uFF0F\uFF3C\u29F5\u2216\uFE68]/g;
const DOT_LOOKALIKES = /[\u2024\uFE52\uFF0E\u3002\uFF61]/g;

function percentDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    // A stray '%' (a file literally named "100%.md") is not an encoding.
    return undefined;
  }
}

/** Distinct spellings to check, the literal one (with `\` read as a separator) first. */
export function pathSpellings(requested: string): string[] {
  const out = new Set<string>();
  const add = (v: string): void => {
    out.add(v.replaceAll('\\', '/'));
    out.add(v.normalize('NFKC').replace(SLASH_LOOKALIKES, '/').replace(DOT_LOOKALIKES, '.').replaceAll('\\', '/'));
  };
  add(requested);
  // Overlong UTF-8 (`%c0%af` = '/') is rejected by decodeURIComponent but decoded by lenient
  // decoders that once made it a famous traversal.
  if (/%c[01]%/i.test(requested))
    add(
      requested
        .replace(/%c0%ae/gi, '.')
        .replace(/%c0%af/gi, '/')
        .replace(/%c1%9c/gi, '/'),
    );
  // Double and triple encoding (`%252e`) are classic filter bypasses; three rounds cover them.
  let current = requested;
  for (let round = 0; round < 3; round++) {
    const decoded = percentDecode(current);
    if (decoded === undefined || decoded === current) break;
    add(decoded);
    current = decoded;
  }
  return [...out];
}
