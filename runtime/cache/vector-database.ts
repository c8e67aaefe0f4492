// The Tier 2 index (semantic-cache-phase2.md §6): a backend-agnostic interface and the default, exact
// in-process search per partition. An external engine can implement the same interface at scale.
import { createEmbeddingRows, type EmbeddingRows } from '../patterns/embeddings/embedding-rows.ts';
import { createQuantizedRows, type QuantizedRows } from '../patterns/embeddings/quantized-rows.ts';
import { dotsJs } from '../patterns/embeddings/simd-dots.ts';
import { createBoundedTopK } from '../patterns/bounded-top-k.ts';
import { FloatRowFile } from './float-row-file.ts';

export interface VectorRecord {
  id: string;
  partition: string;
  vector: Float32Array;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity (vectors are L2-normalised). */
  score: number;
}

export interface VectorDatabase {
  readonly dim: number;
  upsert(records: readonly VectorRecord[]): number;
  /** The `topK` nearest in `partition`, best first; ties by id. */
  query(partition: string, vector: Float32Array, topK: number): VectorHit[];
  delete(ids: readonly string[]): number;
  count(): number;
}

export class VectorDimensionError extends Error {
  constructor(expected: number, actual: number) {
    super(`vector has ${actual} dimensions, the index holds ${expected}: embed with the index's embedder or open a new cache`);
    this.name = 'VectorDimensionError';
  }
}

/** Rows at which a partition moves from a plain array to the SIMD-backed rows (64 KiB of kernel memory each). */
const SIMD_MIN_ROWS = 256;
/** Past this share of rows to re-score one by one, one float32 SIMD pass over every row is cheaper. */
const RESCORE_SHARE = 1 / 8;
/** The same for rows read back from a spill file (one read call each, against one sequential scan). */
const SPILLED_RESCORE_SHARE = 1 / 64;
/** Default rows at which a partition's float32 rows leave memory for a spill file (see docs/semantic-cache.md). */
export const DEFAULT_SPILL_ROWS = 65_536;
/** Rows read per block when a spilled partition is scanned whole. */
const SCAN_BLOCK_ROWS = 1_024;

export interface InMemoryVectorDatabaseOptions {
  /**
   * Rows of one partition at which its float32 rows move to a temporary file and only the int8 copy and
   * per-row norms stay resident (about 0.4 KB per 384-d row instead of 2 KB). Default 65,536.
   */
  spillRows?: number;
  /** Directory of the spill files (default the OS temp directory); each file is unlinked once open. */
  spillDir?: string;
  /**
   * Largest int8 matrix per WebAssembly memory, in bytes (default 1 GiB); more rows go to another memory.
   * Resident float32 rows take the same rows per memory (four times the bytes).
   */
  chunkBytes?: number;
}

/**
 * One partition: rows back to back, swap-remove on delete. Large partitions keep an int8 copy whose score
 * intervals let a query skip most exact dot products, beside float32 rows for the SIMD kernel or, past
 * `spillRows`, in a file read back only for the rows a query must score exactly.
 */
class PartitionMatrix {
  private plain: Float32Array | null;
  private rows: EmbeddingRows | null = null;
  private file: FloatRowFile | null = null;
  private quantized: QuantizedRows | null = null;
  private scanner: EmbeddingRows | null = null;
  readonly ids: string[] = [];
  constructor(
    private readonly dim: number,
    private readonly options: InMemoryVectorDatabaseOptions,
  ) {
    this.plain = new Float32Array(dim * 16);
  }
  put(row: number | undefined, id: string, v: Float32Array): number {
    if (row === undefined) {
      row = this.ids.length;
      this.ids.push(id);
      if (this.plain && this.ids.length >= SIMD_MIN_ROWS) this.promote();
      else if (this.plain && this.ids.length * this.dim > this.plain.length) {
        const grown = new Float32Array(this.plain.length * 2);
        grown.set(this.plain);
        this.plain = grown;
      } else if (this.rows && this.ids.length >= (this.options.spillRows ?? DEFAULT_SPILL_ROWS)) this.spill();
    }
    if (this.plain) this.plain.set(v, row * this.dim);
    else {
      if (this.rows) this.rows.set(row, v);
      else this.file!.write(row, v);
      this.quantized!.set(row, v);
    }
    return row;
  }
  private promote(): void {
    const chunkBytes = this.options.chunkBytes;
    // As many float32 rows per memory as int8 rows (int8 rows are padded to 32 bytes).
    const perMemory = chunkBytes === undefined ? 0 : Math.max(1, Math.floor(chunkBytes / (Math.ceil(this.dim / 32) * 32)));
    const rows = createEmbeddingRows(this.dim, SIMD_MIN_ROWS * 2, perMemory ? { chunkBytes: perMemory * this.dim * 4 } : {});
    const quantized = createQuantizedRows(this.dim, SIMD_MIN_ROWS * 2, { chunkBytes: this.options.chunkBytes });
    for (let r = 0; r < this.ids.length - 1; r++) {
      const v = this.plain!.subarray(r * this.dim, (r + 1) * this.dim);
      rows.set(r, v);
      quantized.set(r, v);
    }
    this.rows = rows;
    this.quantized = quantized;
    this.plain = null;
  }
  /** Moves the float32 rows (all but the one being added) to a file; the int8 copy stays. */
  private spill(): void {
    const file = new FloatRowFile(this.dim, this.options.spillDir);
    for (let r = 0; r < this.ids.length - 1; r++) file.write(r, this.rows!.get(r)!);
    this.file = file;
    this.rows = null;
  }
  /** Removes `row`; returns the id that moved into it, if any. */
  remove(row: number): string | undefined {
    const last = this.ids.length - 1;
    if (row !== last) {
      if (this.plain) this.plain.copyWithin(row * this.dim, last * this.dim, (last + 1) * this.dim);
      else {
        if (this.rows) this.rows.move(last, row);
        else this.file!.move(last, row);
        this.quantized!.move(last, row);
      }
      this.ids[row] = this.ids[last]!;
    } else if (this.rows) this.rows.clear(last);
    this.ids.pop();
    return row !== last ? this.ids[row] : undefined;
  }
  /** Cosine of `q` with every row, in row order; the result is a view the next call overwrites. */
  dots(q: Float32Array, scratch: Float32Array): Float32Array {
    const n = this.ids.length;
    if (this.rows) return this.rows.dots(q, n);
    if (this.file) {
      // Blocks read from the file into SIMD rows: the same bits as dotsJs, several times faster.
      this.scanner ??= createEmbeddingRows(this.dim, SCAN_BLOCK_ROWS);
      const buf = new Float32Array(SCAN_BLOCK_ROWS * this.dim);
      for (let first = 0; first < n; first += SCAN_BLOCK_ROWS) {
        const rows = Math.min(SCAN_BLOCK_ROWS, n - first);
        const block = this.file.readRows(first, rows, buf);
        for (let r = 0; r < rows; r++) this.scanner.set(r, block.subarray(r * this.dim, (r + 1) * this.dim));
        scratch.set(this.scanner.dots(q, rows), first);
      }
      return scratch;
    }
    dotsJs(this.plain!, this.dim, n, q, scratch);
    return scratch;
  }
  /** Cosine of `q` with one row, the same bits `dots` gives it; `one` is a 1-float scratch. */
  dot(row: number, q: Float32Array, one: Float32Array): number {
    const v = this.plain ? this.plain.subarray(row * this.dim, (row + 1) * this.dim) : this.rows ? this.rows.get(row)! : this.file!.read(row);
    dotsJs(v, this.dim, 1, q, one);
    return one[0]!;
  }
  /** Rows that can reach the top k (ascending), or null for a partition too small to keep int8 copies. */
  candidates(q: Float32Array, k: number): Int32Array | null {
    return this.quantized ? this.quantized.candidates(q, this.ids.length, k) : null;
  }
  /** Past this many candidates a whole pass is cheaper than re-scoring them one by one. */
  rescoreLimit(): number {
    return this.ids.length * (this.file ? SPILLED_RESCORE_SHARE : RESCORE_SHARE);
  }
  /** Bytes of vector data held in memory (float32 rows unless spilled, int8 copies, norms). */
  residentBytes(): number {
    const own = (this.plain?.byteLength ?? 0) + (this.scanner?.capacityBytes() ?? 0) + (this.quantized?.residentBytes() ?? 0);
    return own + (this.rows ? this.rows.capacityBytes() : 0);
  }
  close(): void {
    this.file?.close();
  }
}

const byScoreThenId = (a: VectorHit, b: VectorHit): number => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Exact cosine search, one matrix per partition: the same top-k, scores and tie order as scoring every
 * row in float32. Large partitions first scan int8 copies for score intervals, then score exactly only the
 * rows whose upper bound reaches the k-th best lower bound (any other row has k rows strictly above it).
 * Partitions past `spillRows` keep their float32 rows in a temporary file: call `close()` when done.
 */
export class InMemoryVectorDatabase implements VectorDatabase {
  private readonly partitions = new Map<string, PartitionMatrix>();
  private readonly where = new Map<string, { partition: string; row: number }>();
  private scratch = new Float32Array(1024);
  private readonly one = new Float32Array(1);

  constructor(
    readonly dim: number,
    private readonly options: InMemoryVectorDatabaseOptions = {},
  ) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`dim must be a whole number > 0, got ${dim}`);
    const spill = options.spillRows;
    if (spill !== undefined && !(Number.isInteger(spill) && spill >= SIMD_MIN_ROWS)) throw new RangeError(`spillRows must be a whole number >= ${SIMD_MIN_ROWS}, got ${spill}`);
  }

  /** Inserts or replaces records; a vector with a NaN or infinite component is refused (it has no rank). */
  upsert(records: readonly VectorRecord[]): number {
    for (const r of records) {
      if (r.vector.length !== this.dim) throw new VectorDimensionError(this.dim, r.vector.length);
      if (!r.vector.every(Number.isFinite)) throw new RangeError(`vector for ${r.id} has a NaN or infinite component`);
    }
    for (const r of records) {
      const at = this.where.get(r.id);
      if (at && at.partition !== r.partition) this.delete([r.id]);
      let m = this.partitions.get(r.partition);
      if (!m) this.partitions.set(r.partition, (m = new PartitionMatrix(this.dim, this.options)));
      const row = m.put(at && at.partition === r.partition ? at.row : undefined, r.id, r.vector);
      this.where.set(r.id, { partition: r.partition, row });
    }
    return records.length;
  }

  query(partition: string, vector: Float32Array, topK: number): VectorHit[] {
    if (vector.length !== this.dim) throw new VectorDimensionError(this.dim, vector.length);
    if (!Number.isInteger(topK) || topK < 1) throw new RangeError(`topK must be a whole number >= 1, got ${topK}`);
    if (!vector.every(Number.isFinite)) throw new RangeError('query vector has a NaN or infinite component');
    const m = this.partitions.get(partition);
    if (!m || m.ids.length === 0) return [];
    const n = m.ids.length;
    const candidates = n > topK ? m.candidates(vector, topK) : null;
    if (candidates) {
      if (candidates.length <= m.rescoreLimit()) {
        const top = createBoundedTopK<VectorHit>(topK, byScoreThenId);
        for (const r of candidates) top.offer({ id: m.ids[r]!, score: m.dot(r, vector, this.one) });
        return top.sorted();
      }
    }
    if (this.scratch.length < n) this.scratch = new Float32Array(Math.max(n, this.scratch.length * 2));
    const d = m.dots(vector, this.scratch);
    const top = createBoundedTopK<number>(topK, (x, y) => d[y]! - d[x]! || (m.ids[x]! < m.ids[y]! ? -1 : m.ids[x]! > m.ids[y]! ? 1 : 0));
    for (let r = 0; r < n; r++) top.offer(r);
    return top.sorted().map((r) => ({ id: m.ids[r]!, score: d[r]! }));
  }

  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const at = this.where.get(id);
      if (!at) continue;
      const m = this.partitions.get(at.partition)!;
      const moved = m.remove(at.row);
      if (moved !== undefined) this.where.set(moved, { partition: at.partition, row: at.row });
      this.where.delete(id);
      if (m.ids.length === 0) {
        m.close();
        this.partitions.delete(at.partition);
      }
      removed++;
    }
    return removed;
  }

  count(): number {
    return this.where.size;
  }

  /** Bytes of vector data held in memory, all partitions (ids and the id map not counted). */
  residentBytes(): number {
    let bytes = this.scratch.byteLength;
    for (const m of this.partitions.values()) bytes += m.residentBytes();
    return bytes;
  }

  /** Closes the spill files of large partitions; the database is empty afterwards. */
  close(): void {
    for (const m of this.partitions.values()) m.close();
    this.partitions.clear();
    this.where.clear();
  }
}
