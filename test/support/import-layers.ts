// The import graph of harness/ and runtime/, read statically from the sources, and the two rules that keep it
// readable (docs/architecture.md, Floors): an import points to the importer's own folder or down a floor,
// never up or sideways; and no import circle anywhere. The floors are data: harness/data/layers.json.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

export interface Floor {
  name: string;
  description: string;
  /** Folders or single files (repo-relative, no trailing slash); a file belongs to the longest that contains it. */
  units: string[];
}

export interface PendingImport {
  from: string;
  to: string;
  fix: string;
}

export interface LayersFile {
  version: string;
  roots: string[];
  floors: Floor[];
  pending: PendingImport[];
}

/** One import edge: `from` imports `to` (repo-relative paths), on line `line` of `from`. */
export interface ImportEdge {
  from: string;
  to: string;
  line: number;
}

/** Test files and test helpers are not layered: they exercise the whole. */
export function isLayeredSource(path: string): boolean {
  return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') && !path.split('/').includes('test-support');
}

/** Every layered .ts file under `roots`, repo-relative with forward slashes, sorted. */
export function sourceFiles(repo: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const p = posix.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (isLayeredSource(p)) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; type-only imports count too,
// since they still tie the two files together.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'([^']+)'/g;

/** The relative imports of one source text as repo-relative paths, with their line numbers (whole-line and block comments skipped). */
export function importsOf(path: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    let line = raw;
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) return;
      line = line.slice(end + 2);
      inBlock = false;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith('//') || trimmed.startsWith('*')) return;
    if (trimmed.startsWith('/*')) {
      if (!trimmed.includes('*/')) inBlock = true;
      return;
    }
    for (const m of line.matchAll(SPECIFIER)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue;
      edges.push({ from: path, to: posix.normalize(posix.join(posix.dirname(path), spec)), line: i + 1 });
    }
  });
  return edges;
}

/** All import edges among the layered files under `roots` (edges to files outside them are kept; the check decides). */
export function importEdges(repo: string, roots: readonly string[]): ImportEdge[] {
  return sourceFiles(repo, roots).flatMap((f) => importsOf(f, readFileSync(join(repo, f), 'utf8')));
}

/** The unit (folder or file) a path belongs to: the longest unit that is the path or a folder above it. */
export function unitOf(path: string, floors: readonly Floor[]): { unit: string; floor: number } | null {
  let best: { unit: string; floor: number } | null = null;
  floors.forEach((f, floor) => {
    for (const u of f.units) if ((path === u || path.startsWith(`${u}/`)) && (!best || u.length > best.unit.length)) best = { unit: u, floor };
  });
  return best;
}

/** Why one import breaks the floors, as one line naming both files and the fix; null when it points down or stays in its unit. */
export function floorBreak(edge: ImportEdge, floors: readonly Floor[]): string | null {
  const a = unitOf(edge.from, floors);
  const b = unitOf(edge.to, floors);
  const at = `${edge.from}:${edge.line} imports ${edge.to}`;
  if (!a) return `${edge.from} is on no floor: add its folder to a floor's units in harness/data/layers.json`;
  if (!b) return `${at}, which is on no floor: add its folder to a floor's units in harness/data/layers.json, or import it from where it lives`;
  if (a.unit === b.unit || b.floor < a.floor) return null;
  const where = (u: { unit: string; floor: number }) => `${u.unit} (floor ${u.floor}, ${floors[u.floor]!.name})`;
  if (b.floor === a.floor)
    return `${at}: ${where(b)} is beside ${where(a)}, and folders on one floor do not import each other. Fix: move what both need down a floor, or put one folder on a floor of its own (harness/data/layers.json).`;
  return `${at}: ${where(b)} is above ${where(a)}, and imports point down only. Fix: move the shared code to floor ${a.floor} or lower, or move the importing code up to where it is used.`;
}

/** Every import circle, one per strongly connected set of files, as the files around one circle (first file repeated at the end). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sets: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { v: string; i: number }[] = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work.at(-1)!;
      const succ = graph.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work.at(-1)!.v, Math.min(low.get(work.at(-1)!.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const set: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          set.push(w);
        } while (w !== top.v);
        if (set.length > 1 || (graph.get(top.v) ?? []).includes(top.v)) sets.push(set.sort());
      }
    }
  }
  // One concrete circle per set: the shortest path back to its first file (breadth-first inside the set).
  return sets.map((set) => {
    const inSet = new Set(set);
    const start = set[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of graph.get(v) ?? []) {
        if (!inSet.has(w)) continue;
        if (w === start) {
          const path = [start];
          for (let u: string | undefined = v; u && u !== start; u = prev.get(u)) path.splice(1, 0, u);
          return [...path, start];
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return [...set, start];
  });
}

/** One line per circle, naming its files and the fix. */
export function cycleText(cycle: readonly string[]): string {
  return `import circle: ${cycle.join(' -> ')}. Fix: move what the files share into a module both import, or have the lower one take the other's part as a parameter.`;
}
