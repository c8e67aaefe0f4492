// Just enough of the WebAssembly binary format to hand-assemble the tiny SIMD kernels beside this file
// (simd-dots.ts, simd-int8-dots.ts) without a toolchain or a checked-in .wasm blob, and to instantiate them.

/** Unsigned LEB128, the format's integer encoding. */
export const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
/** Signed LEB128, for i32.const operands. */
export const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};
/** A length-prefixed vector of items. */
export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
export const name = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));
export const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
/** A SIMD instruction (0xfd prefix). */
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
export const get = (i: number): number[] => [0x20, i];
export const set = (i: number): number[] => [0x21, i];
/** v128.load with 16-byte alignment and a constant byte offset. */
export const V128_LOAD = (offset: number): number[] => [...simd(0x00), 4, offset];
export const V128_ZERO = [...simd(0x0c), ...new Array<number>(16).fill(0)];
export const I32 = 0x7f;
export const V128 = 0x7b;
export const F64 = 0x7c;

/**
 * A module importing one memory as env.mem and exporting one function `exportName`; `params` is a count of
 * i32 parameters or a list of value types, `results` its result types (none by default); `body` is its
 * code (locals declaration, instructions, final `end`).
 */
export function kernelModule(exportName: string, params: number | number[], body: number[], results: number[] = []): Uint8Array<ArrayBuffer> {
  const types = typeof params === 'number' ? new Array<number>(params).fill(I32) : params;
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec(types.map((t) => [t])), ...vec(results.map((t) => [t]))]])),
    ...section(2, vec([[...name('env'), ...name('mem'), 0x02, 0x00, 1]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name(exportName), 0x00, 0]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

/**
 * The end of a dot kernel's row loop (simd-dots.ts; params m, q, out, rows, width; `out` is
 * local 2, `rows` local 3, inside block $done > loop $rows): step `out` by one 4-byte result, count the
 * row, loop; then close the loop, the block and the function body.
 */
export const NEXT_ROW: number[] = [
  ...get(2), 0x41, 4, 0x6a, ...set(2), // out += 4
  ...get(3), 0x41, 1, 0x6b, ...set(3), // rows -= 1
  0x0c, 0, // br $rows
  0x0b, // end loop
  0x0b, // end block
  0x0b, // end body
];

/** A dot-product kernel bound to one memory: `dots` reads rows and the query and writes one result per row, all by byte offset. */
export interface SimdKernel {
  readonly memory: WebAssembly.Memory;
  dots(matrixOffset: number, queryOffset: number, outOffset: number, rows: number, width: number): void;
}

/**
 * Compiles `module` once, on first use, and returns a factory binding its export `exportName` to a fresh
 * memory of `pages` 64 KiB pages — or null where the runtime lacks WebAssembly SIMD (callers then use
 * their plain-JS twin, which gives the same results).
 */
export function lazyInstance<F>(module: Uint8Array<ArrayBuffer>, exportName: string): (pages: number) => { memory: WebAssembly.Memory; fn: F } | null {
  let compiled: WebAssembly.Module | null | undefined;
  return (pages) => {
    if (compiled === undefined) compiled = typeof WebAssembly === 'object' && WebAssembly.validate(module) ? new WebAssembly.Module(module) : null;
    if (!compiled) return null;
    const memory = new WebAssembly.Memory({ initial: pages });
    const instance = new WebAssembly.Instance(compiled, { env: { mem: memory } });
    return { memory, fn: instance.exports[exportName] as F };
  };
}

/** `lazyInstance` for the dot-product kernels' shared signature. */
export function lazyKernel(module: Uint8Array<ArrayBuffer>, exportName: string): (pages: number) => SimdKernel | null {
  const bind = lazyInstance<SimdKernel['dots']>(module, exportName);
  return (pages) => {
    const k = bind(pages);
    return k && { memory: k.memory, dots: k.fn };
  };
}
