/**
 * An in-memory {@link Disk} that misbehaves on purpose, for crash and fault tests and for the
 * simulators. Deterministic for a given seed.
 *
 * ## The durability model (simple on purpose; tests rely on exactly this)
 * - Every file (inode) has a *current* content (what reads see: the page cache) and a *durable*
 *   content (what survives power loss). `fsync(fd)` copies current to durable for that file,
 *   size included. Nothing else makes file content durable.
 * - The namespace is also kept twice: the current one (which path names which inode) and, per
 *   directory inode, its durable entries (name -> inode), as a file system keeps a directory's
 *   entries in the directory itself. Creates, deletes, renames and mkdirs change the current
 *   namespace at once and are queued as pending operations on the directory inodes they touch.
 *   `fsyncDir(dir)` commits, in order, every pending operation that touches `dir`'s inode (a
 *   rename touches the directories of both names and is committed whole). So a new file whose
 *   directory was never fsynced disappears on power loss even if the file itself was fsynced,
 *   and so does a rename (as on Linux without `dirsync`). An entry belongs to its directory's
 *   inode, not to its path: a pending create in a directory that is then renamed away stays in
 *   that directory, and a new directory made later under the old name starts empty (its fsync
 *   never commits the old directory's entries).
 * - {@link FaultDisk.powerLoss} throws away everything that is not durable:
 *   - `mode: 'strict'` keeps exactly the durable state;
 *   - `mode: 'torn'` (seeded) models a crash in which the OS had written back *some* of the
 *     page cache: each file independently keeps its durable content or a prefix (of random
 *     length, at least the part it shares with the durable content) of its current content,
 *     sometimes with the end of that prefix zero-filled (blocks allocated, data not written);
 *     and a random prefix of the pending namespace operations is committed (the journal
 *     commits in order, so a rename is atomic). Data that was fsynced is never lost.
 *   What survives is what the durable entries reach from the root (entries of a directory whose
 *   own entry did not survive are dropped with it). All open file descriptors
 *   become invalid (`EBADF`).
 *
 * ## Faults
 * - `faultRule(op)`: called before each call; returning `{ code }` makes the call throw a
 *   {@link DiskError} with that code; for a write, `persistBytes` bytes of it land first
 *   (a torn write).
 * - `capacityBytes`: the total size of all files may not exceed it; a write that does not fit
 *   stores the prefix that fits and throws `ENOSPC` (as a real `write(2)` returns short then
 *   fails).
 * - `syncFileSystem(dir)` (syncfs) makes everything durable at once, as `syncAll` does; a fault
 *   rule answering `ENOTSUP` for it models a platform without syncfs.
 * - `crashAfter(n)`: the n-th call from now "loses power" mid-call (a write lands a random
 *   prefix in the page cache) and throws {@link SimulatedCrash}; every later call throws it too
 *   until {@link FaultDisk.powerLoss} is called. `SimulatedCrash` is not a `DiskError`, so it
 *   escapes the storage layer's error handling like a real process death would end it.
 */
import * as path from 'node:path';
import { type Disk, DiskError, type OpenMode } from './disk.js';
import { SeededRandom } from './random.js';

/** Thrown by every call once a scheduled crash has happened; never caught by storage code. */
export class SimulatedCrash extends Error {
  constructor() {
    super('simulated power loss');
    this.name = 'SimulatedCrash';
  }
}

/** One call into the disk, as shown to {@link FaultDisk.faultRule}. */
export interface DiskOp {
  kind: 'open' | 'close' | 'read' | 'write' | 'fsync' | 'fileSize' | 'truncate' | 'size' | 'exists'
    | 'rename' | 'delete' | 'list' | 'isDirectory' | 'mkdir' | 'fsyncDir' | 'syncFileSystem';
  path: string;
  /** Sequence number of this call on this disk, from 0. */
  index: number;
  /** Bytes involved (write length, truncate length), when it applies. */
  bytes?: number;
}

/** What a fault rule asks for: fail with `code`; for writes, after persisting `persistBytes`. */
export interface DiskFault {
  code: string;
  persistBytes?: number;
}

interface Inode {
  id: number;
  isDirectory: boolean;
  data: Buffer;      // current content in data[0..length)
  length: number;
  durable: Buffer;   // durable content, exact length
  /** A directory's durable entries (name -> inode); empty for a file. */
  entries: Map<string, Inode>;
}

/** A namespace change not durable yet, on the directory inodes it touches. */
type NamespaceOp =
  | { kind: 'link'; dir: Inode; name: string; inode: Inode }
  | { kind: 'unlink'; dir: Inode; name: string }
  | { kind: 'rename'; fromDir: Inode; fromName: string; toDir: Inode; toName: string; inode: Inode };

interface OpenFile {
  inode: Inode;
  path: string;
  writable: boolean;
}

const ROOT = '/';

/** The fault-injecting in-memory disk. See the file header for the model. */
export class FaultDisk implements Disk {
  /** Consulted before every call; see {@link DiskFault}. */
  faultRule: ((op: DiskOp) => DiskFault | undefined) | undefined;
  /** Total bytes all files may hold; `Infinity` by default. */
  capacityBytes = Infinity;

  private readonly random: SeededRandom;
  private current = new Map<string, Inode>();
  private readonly root: Inode;
  private pending: NamespaceOp[] = [];
  private files = new Map<number, OpenFile>();
  private nextFd = 3;
  private nextInode = 1;
  private callCount = 0;
  private crashCountdown = -1;
  private crashed = false;

  /** @param seed seeds the choices made by torn writes, crashes and `torn` power loss */
  constructor(seed: number) {
    this.random = new SeededRandom(seed);
    this.root = this.newInode(true);
    this.current.set(ROOT, this.root);
  }

  /** Number of calls made so far (the `index` the next call will get). */
  get operationCount(): number {
    return this.callCount;
  }

  /** True once a scheduled crash fired and until {@link powerLoss}. */
  get hasCrashed(): boolean {
    return this.crashed;
  }

  /** Schedules a crash during the `calls`-th call from now (1 = the next call). */
  crashAfter(calls: number): void {
    if (!(calls >= 1)) throw new Error(`crashAfter(${calls}): must be >= 1`);
    this.crashCountdown = calls;
  }

  /** Makes the whole current state durable, as if everything had been fsynced (test set-up). */
  syncAll(): void {
    this.commitPending(() => true);
    for (const inode of this.current.values()) inode.durable = Buffer.from(inode.data.subarray(0, inode.length));
  }

  /**
   * Simulates losing power and rebooting: only durable state survives (see the file header for
   * `strict` and `torn`). Open descriptors become invalid; scheduled crashes are cleared.
   */
  powerLoss(mode: 'strict' | 'torn' = 'strict'): void {
    if (mode === 'torn' && this.pending.length > 0) {
      const keep = this.random.int(0, this.pending.length);
      const survivors = new Set(this.pending.slice(0, keep));
      this.commitPending((op) => survivors.has(op));
    }
    this.pending = [];
    const durable = this.durableNamespace();
    const seen = new Set<Inode>();
    for (const p of [...durable.keys()].sort()) {
      const inode = durable.get(p)!;
      if (seen.has(inode) || inode.isDirectory) continue;
      seen.add(inode);
      if (mode === 'torn') this.tearContent(inode);
      inode.data = Buffer.from(inode.durable);
      inode.length = inode.durable.length;
    }
    this.current = durable;
    this.files.clear();
    this.crashCountdown = -1;
    this.crashed = false;
  }

  /** The current content of a file (test inspection; not counted as a call). */
  peek(filePath: string): Buffer | undefined {
    const inode = this.current.get(path.resolve(filePath));
    return inode === undefined || inode.isDirectory ? undefined : Buffer.from(inode.data.subarray(0, inode.length));
  }

  /** Total bytes of all files in the current namespace. */
  usedBytes(): number {
    let total = 0;
    const seen = new Set<Inode>();
    for (const inode of this.current.values()) {
      if (seen.has(inode)) continue;
      seen.add(inode);
      total += inode.length;
    }
    return total;
  }

  open(filePath: string, mode: OpenMode): number {
    const p = this.enter('open', filePath);
    let inode = this.current.get(p);
    if (inode === undefined) {
      if (mode !== 'create') throw new DiskError('ENOENT', 'open', p);
      this.requireParentDirectory(p, 'open');
      inode = this.newInode(false);
      this.link(p, inode);
    } else if (inode.isDirectory) {
      throw new DiskError('EISDIR', 'open', p);
    }
    const fd = this.nextFd++;
    this.files.set(fd, { inode, path: p, writable: mode !== 'read' });
    return fd;
  }

  close(fd: number): void {
    this.enter('close', this.files.get(fd)?.path ?? '');
    if (!this.files.delete(fd)) throw new DiskError('EBADF', 'close');
  }

  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number {
    const file = this.file(fd, 'read');
    const inode = file.inode;
    const n = Math.max(0, Math.min(length, inode.length - position));
    if (n > 0) target.set(inode.data.subarray(position, position + n), targetOffset);
    return n;
  }

  write(fd: number, data: Uint8Array, position: number): void {
    const file = this.files.get(fd);
    const op = this.begin('write', file?.path ?? '', data.length);
    if (op.crash) {
      if (file !== undefined) this.store(file.inode, data.subarray(0, this.random.int(0, data.length)), position);
      throw this.crash();
    }
    if (file === undefined) throw new DiskError('EBADF', 'write');
    if (!file.writable) throw new DiskError('EBADF', 'write', file.path);
    if (op.fault !== undefined) {
      const persist = Math.max(0, Math.min(data.length, op.fault.persistBytes ?? 0));
      this.store(file.inode, data.subarray(0, persist), position);
      throw new DiskError(op.fault.code, 'write', file.path, 'injected');
    }
    if (this.capacityBytes !== Infinity) {
      const growth = Math.max(0, position + data.length - file.inode.length);
      const free = this.capacityBytes - this.usedBytes();
      if (growth > free) {
        const fits = Math.max(0, Math.min(data.length, file.inode.length + free - position));
        this.store(file.inode, data.subarray(0, fits), position);
        throw new DiskError('ENOSPC', 'write', file.path, 'capacity reached');
      }
    }
    this.store(file.inode, data, position);
  }

  fsync(fd: number): void {
    const file = this.file(fd, 'fsync');
    file.inode.durable = Buffer.from(file.inode.data.subarray(0, file.inode.length));
  }

  fileSize(fd: number): number {
    return this.file(fd, 'fileSize').inode.length;
  }

  truncate(fd: number, length: number): void {
    const file = this.file(fd, 'truncate', length);
    if (!file.writable) throw new DiskError('EBADF', 'ftruncate', file.path);
    const inode = file.inode;
    if (length > inode.length) {
      if (this.capacityBytes !== Infinity && length - inode.length > this.capacityBytes - this.usedBytes()) {
        throw new DiskError('ENOSPC', 'ftruncate', file.path);
      }
      this.ensureCapacity(inode, length);
      inode.data.fill(0, inode.length, length);
    }
    inode.length = length;
  }

  size(filePath: string): number {
    const p = this.enter('size', filePath);
    const inode = this.current.get(p);
    if (inode === undefined) throw new DiskError('ENOENT', 'stat', p);
    return inode.isDirectory ? 0 : inode.length;
  }

  exists(filePath: string): boolean {
    return this.current.has(this.enter('exists', filePath));
  }

  rename(from: string, to: string): void {
    const source = this.enter('rename', from);
    const target = path.resolve(to);
    const inode = this.current.get(source);
    if (inode === undefined) throw new DiskError('ENOENT', 'rename', source);
    this.requireParentDirectory(target, 'rename');
    const existing = this.current.get(target);
    if (existing !== undefined && existing.isDirectory && (!inode.isDirectory || this.children(target).length > 0)) {
      throw new DiskError(inode.isDirectory ? 'ENOTEMPTY' : 'EISDIR', 'rename', target);
    }
    if (source === target) return;
    const fromDir = this.current.get(path.dirname(source))!;
    const toDir = this.current.get(path.dirname(target))!;
    if (inode.isDirectory) {
      // Move the whole subtree in the current namespace; record one op per moved entry.
      const prefix = source + '/';
      for (const [p, child] of [...this.current.entries()]) {
        if (p.startsWith(prefix)) {
          this.current.delete(p);
          this.current.set(target + p.slice(source.length), child);
        }
      }
    }
    this.current.delete(source);
    this.current.set(target, inode);
    this.pending.push({ kind: 'rename', fromDir, fromName: path.basename(source), toDir, toName: path.basename(target), inode });
  }

  delete(filePath: string): void {
    const p = this.enter('delete', filePath);
    const inode = this.current.get(p);
    if (inode === undefined) return;
    if (inode.isDirectory && this.children(p).length > 0) throw new DiskError('ENOTEMPTY', 'rmdir', p);
    this.current.delete(p);
    this.pending.push({ kind: 'unlink', dir: this.current.get(path.dirname(p))!, name: path.basename(p) });
  }

  list(dir: string): string[] {
    const p = this.enter('list', dir);
    const inode = this.current.get(p);
    if (inode === undefined) throw new DiskError('ENOENT', 'readdir', p);
    if (!inode.isDirectory) throw new DiskError('ENOTDIR', 'readdir', p);
    return this.children(p).map((child) => path.basename(child)).sort();
  }

  isDirectory(filePath: string): boolean {
    return this.current.get(this.enter('isDirectory', filePath))?.isDirectory === true;
  }

  mkdir(dir: string): void {
    const p = this.enter('mkdir', dir);
    const missing: string[] = [];
    for (let q = p; !this.current.has(q); q = path.dirname(q)) missing.push(q);
    for (const q of missing.reverse()) this.link(q, this.newInode(true));
    if (!this.current.get(p)!.isDirectory) throw new DiskError('EEXIST', 'mkdir', p);
  }

  /** syncfs(2): every file's content and every pending namespace operation become durable (the whole disk is one file system). */
  syncFileSystem(dir: string): void {
    const p = this.enter('syncFileSystem', dir);
    if (!this.current.has(p)) throw new DiskError('ENOENT', 'syncfs', p);
    this.syncAll();
  }

  fsyncDir(dir: string): void {
    const p = this.enter('fsyncDir', dir);
    const inode = this.current.get(p);
    if (inode === undefined) throw new DiskError('ENOENT', 'fsync', p);
    this.commitPending((op) => (op.kind === 'rename' ? op.fromDir === inode || op.toDir === inode : op.dir === inode));
  }

  // ---- internals ----

  private newInode(isDirectory: boolean): Inode {
    return { id: this.nextInode++, isDirectory, data: Buffer.alloc(0), length: 0, durable: Buffer.alloc(0), entries: new Map() };
  }

  private link(p: string, inode: Inode): void {
    this.current.set(p, inode);
    this.pending.push({ kind: 'link', dir: this.current.get(path.dirname(p))!, name: path.basename(p), inode });
  }

  /** Every path the durable entries reach from the root (what a reboot finds). */
  private durableNamespace(): Map<string, Inode> {
    const found = new Map<string, Inode>([[ROOT, this.root]]);
    const visited = new Set<Inode>([this.root]);
    const walk = (dirPath: string, dir: Inode): void => {
      for (const [name, child] of dir.entries) {
        const childPath = path.join(dirPath, name);
        found.set(childPath, child);
        // A directory is reached once (a rename into its own subtree would otherwise loop).
        if (child.isDirectory && !visited.has(child)) {
          visited.add(child);
          walk(childPath, child);
        }
      }
    };
    walk(ROOT, this.root);
    return found;
  }

  private children(dir: string): string[] {
    const result: string[] = [];
    for (const p of this.current.keys()) if (p !== dir && path.dirname(p) === dir) result.push(p);
    return result;
  }

  private requireParentDirectory(p: string, syscall: string): void {
    if (this.current.get(path.dirname(p))?.isDirectory !== true) throw new DiskError('ENOENT', syscall, p);
  }

  /** Applies the pending ops selected by `select` (in order) to the durable namespace. */
  private commitPending(select: (op: NamespaceOp) => boolean): void {
    const remaining: NamespaceOp[] = [];
    for (const op of this.pending) {
      if (!select(op)) {
        remaining.push(op);
        continue;
      }
      if (op.kind === 'link') op.dir.entries.set(op.name, op.inode);
      else if (op.kind === 'unlink') op.dir.entries.delete(op.name);
      else {
        // A directory's entries live in its inode: they move with it.
        op.fromDir.entries.delete(op.fromName);
        op.toDir.entries.set(op.toName, op.inode);
      }
    }
    this.pending = remaining;
  }

  private tearContent(inode: Inode): void {
    const current = inode.data.subarray(0, inode.length);
    if (current.equals(inode.durable) || this.random.chance(1 / 3)) return;
    let common = 0;
    const limit = Math.min(current.length, inode.durable.length);
    while (common < limit && current[common] === inode.durable[common]) common++;
    const keep = this.random.int(common, current.length);
    const torn = Buffer.from(current.subarray(0, keep));
    if (keep > common && this.random.chance(1 / 3)) {
      const zeroFrom = Math.max(common, keep - this.random.int(1, 4096));
      torn.fill(0, zeroFrom, keep);
    }
    // Bytes past `keep` that were durable before (a truncation that did not reach the disk)
    // come back: the file cannot end up shorter than both versions' common prefix allows.
    inode.durable = keep >= inode.durable.length ? torn : Buffer.concat([torn, inode.durable.subarray(keep)]);
  }

  private ensureCapacity(inode: Inode, length: number): void {
    if (inode.data.length >= length) return;
    const grown = Buffer.alloc(Math.max(length, inode.data.length * 2, 4096));
    inode.data.copy(grown, 0, 0, inode.length);
    inode.data = grown;
  }

  private store(inode: Inode, bytes: Uint8Array, position: number): void {
    if (bytes.length === 0) return;
    const end = position + bytes.length;
    this.ensureCapacity(inode, end);
    if (position > inode.length) inode.data.fill(0, inode.length, position);
    inode.data.set(bytes, position);
    inode.length = Math.max(inode.length, end);
  }

  private crash(): SimulatedCrash {
    this.crashed = true;
    return new SimulatedCrash();
  }

  /** Counts the call, fires scheduled crashes and injected faults (except for writes). */
  private begin(kind: DiskOp['kind'], p: string, bytes?: number): { crash: boolean; fault: DiskFault | undefined } {
    if (this.crashed) throw new SimulatedCrash();
    const op: DiskOp = { kind, path: p, index: this.callCount++ };
    if (bytes !== undefined) op.bytes = bytes;
    if (this.crashCountdown > 0 && --this.crashCountdown === 0) {
      this.crashCountdown = -1;
      return { crash: true, fault: undefined };
    }
    return { crash: false, fault: this.faultRule?.(op) };
  }

  private enter(kind: DiskOp['kind'], filePath: string, bytes?: number): string {
    const p = filePath === '' ? '' : path.resolve(filePath);
    const op = this.begin(kind, p, bytes);
    if (op.crash) throw this.crash();
    if (op.fault !== undefined) throw new DiskError(op.fault.code, kind, p, 'injected');
    return p;
  }

  private file(fd: number, kind: DiskOp['kind'], bytes?: number): OpenFile {
    const file = this.files.get(fd);
    this.enter(kind, file?.path ?? '', bytes);
    if (file === undefined) throw new DiskError('EBADF', kind);
    return file;
  }
}
