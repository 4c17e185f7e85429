import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The folders of packages/pipeline/src are its layers (issue 26): a folder may use a lower
 * one, never the other way round. `gates/` and `steps/` once imported each other, which made
 * neither the lower one. A file directly under src/ (index.ts, runtime.ts) is a node of its own.
 */
const SRC = path.resolve(import.meta.dirname, '../packages/pipeline/src');

/** The folder a file belongs to: its first directory under src/, or `(root)` for a file directly there. */
function folderOf(rel: string): string {
  const [first, ...rest] = rel.split(path.sep);
  return rest.length > 0 ? first! : '(root)';
}

/** Every relative import, export-from and dynamic import of every .ts file, as `file -> file` under src/. */
function fileImports(): [from: string, to: string][] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(path.join(SRC, file), 'utf8'), true, true)
      .importedFiles.filter((i) => i.fileName.startsWith('.'))
      .map((i): [string, string] => [file, path.relative(SRC, path.resolve(SRC, path.dirname(file), i.fileName))]),
  );
}

/** Folder pairs that import each other, with the file imports that make each direction. */
function mutualFolders(imports: [string, string][]): string[] {
  const edges = new Map<string, string[]>();
  for (const [from, to] of imports) {
    const key = `${folderOf(from)} -> ${folderOf(to)}`;
    if (folderOf(from) !== folderOf(to)) edges.set(key, [...(edges.get(key) ?? []), `${from} -> ${to}`]);
  }
  const mutual: string[] = [];
  for (const [key, why] of edges) {
    const [a, b] = key.split(' -> ') as [string, string];
    const back = edges.get(`${b} -> ${a}`);
    if (back && a < b) mutual.push(`${a} <-> ${b}: ${[...why, ...back].join(', ')}`);
  }
  return mutual;
}

describe('the folders of packages/pipeline/src', () => {
  it('reads the imports it checks (the parse finds the layering it guards)', () => {
    const imports = fileImports();
    expect(imports).toContainEqual([path.join('steps', 'prepare-step.ts'), path.join('gates', 'workspace-gate.ts')]);
    expect(imports).toContainEqual(['index.ts', path.join('jobs', 'run-job.ts')]);
  });

  it('has no pair of folders importing each other', () => {
    expect(mutualFolders(fileImports())).toEqual([]);
  });

  it('names both directions of a pair that does', () => {
    const imports: [string, string][] = [
      [path.join('steps', 'prepare-step.ts'), path.join('gates', 'workspace-gate.ts')],
      [path.join('gates', 'publish-gate.ts'), path.join('steps', 'work-context.ts')],
      ['index.ts', path.join('steps', 'prepare-step.ts')],
    ];
    expect(mutualFolders(imports)).toEqual([
      `gates <-> steps: ${imports[1]![0]} -> ${imports[1]![1]}, ${imports[0]![0]} -> ${imports[0]![1]}`,
    ]);
  });
});

describe('packages/pipeline/README.md', () => {
  const readme = readFileSync(path.join(SRC, '../README.md'), 'utf8');
  /** The README's folder list: one bullet per folder, `- \`src/<folder>/\`: …` up to the next bullet. */
  const bullets = [...readme.matchAll(/^- `src\/([a-z-]+)\/`:([\s\S]*?)(?=^- |^$)/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  );

  it('describes every folder of src/, and only those', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(bullets.map(([folder]) => folder).sort()).toEqual(folders.sort());
  });

  it('names only files that are in the folder it puts them in', () => {
    const named = bullets.flatMap(([folder, text]) =>
      [...text.matchAll(/`([a-z-]+\.ts)`/g)].map((m) => path.join(folder, m[1]!)),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((file) => !existsSync(path.join(SRC, file)))).toEqual([]);
  });

  it('names only src/ paths that exist', () => {
    const paths = [...readme.matchAll(/`(src\/[\w./-]+)`/g)].map((m) => m[1]!);
    expect(paths.filter((p) => !existsSync(path.join(SRC, '..', p)))).toEqual([]);
  });
});
