// Float32 rows of a large Tier 2 partition kept out of the process's memory: the index keeps only int8
// copies resident and reads back the few rows a query must score exactly. The file is unlinked as soon as
// it is open (where the platform allows), so nothing is left behind if the process dies.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Fixed-size float32 rows addressed by slot, in one temporary file. */
export class FloatRowFile {
  private readonly fd: number;
  private readonly rowBytes: number;
  private readonly buf: Float32Array;
  private closed = false;

  constructor(
    readonly dim: number,
    dir: string = tmpdir(),
  ) {
    this.rowBytes = dim * 4;
    this.buf = new Float32Array(dim);
    const own = mkdtempSync(join(dir, 'metis-vectors-'));
    const path = join(own, 'rows.f32');
    this.fd = openSync(path, 'w+');
    try {
      unlinkSync(path);
      rmSync(own, { recursive: true, force: true });
    } catch {
      // Windows cannot unlink an open file; the directory is then left for the OS's temp cleanup.
    }
  }

  write(slot: number, v: Float32Array): void {
    const bytes = new Uint8Array(v.buffer, v.byteOffset, this.rowBytes);
    writeSync(this.fd, bytes, 0, this.rowBytes, slot * this.rowBytes);
  }

  /** Rows `first`..`first + rows - 1` into `out` (length ≥ rows·dim). */
  readRows(first: number, rows: number, out: Float32Array): Float32Array {
    const want = rows * this.rowBytes;
    const bytes = new Uint8Array(out.buffer, out.byteOffset, want);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, bytes, got, want - got, first * this.rowBytes + got);
      if (n === 0) throw new Error(`vector row file ended at row ${first + Math.floor(got / this.rowBytes)} of ${first + rows}: the index's spill file was truncated`);
      got += n;
    }
    return out.subarray(0, rows * this.dim);
  }

  /** One row; the view is overwritten by the next call. */
  read(slot: number): Float32Array {
    return this.readRows(slot, 1, this.buf);
  }

  move(from: number, to: number): void {
    if (from !== to) this.write(to, Float32Array.from(this.read(from)));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
