import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { BACKUP_FORMAT_VERSION, type MessageKey, type MessageParams } from '@ksp/contracts';
import { nonceBytes } from '../../platform/crypto/random.js';

/**
 * The backup archive (README.md "Archive format"):
 *
 *     magic "KSPBAK\r\n" | u16 format version | u32 header length | header (JSON, in clear)
 *     frames: u8 final flag | u32 ciphertext length | iv 12 | ciphertext | tag 16
 *
 * Each frame is AES-256-GCM under a content key derived (HKDF-SHA256) from the backup key
 * and the header's random salt; its additional data is SHA-256(magic..header) | u64 index |
 * final flag. So the header is authenticated by every frame, and a frame moved, dropped,
 * or a file cut after any frame but the final one fails. The plaintext is JSON lines.
 */
export const MAGIC = Buffer.from('KSPBAK\r\n', 'latin1');
const PREFIX = MAGIC.length + 2 + 4;
const MAX_HEADER = 64 * 1024;
/** Plaintext bytes per frame. */
const CHUNK = 64 * 1024;
const MAX_FRAME = 16 * 1024 * 1024;

export interface ArchiveHeader {
  format_version: number;
  scope: 'system' | 'domain' | 'partial' | 'key_rotation';
  domain_id: string;
  domain_name: string;
  created_at: string;
  source_version: string;
  /** Rows per table at the start of the backup (the final record has the exact figures). */
  counts: Record<string, number>;
  backup_key_id: string;
  /** The backup key's check value, to tell a wrong key from a damaged file. */
  backup_key_kcv: string;
  /** Random, base64: the content key is HKDF(backup key, salt). */
  salt: string;
  description: string;
  /**
   * An HSM-bound backup (`tied_to_hsm`): 32 random bytes sealed by the HSM's token key
   * (additional data `ksp/backup-hsm/<salt>`), mixed into the archive key (`hsmBoundKey`),
   * and the token's serial, to name it when another server cannot open it.
   */
  hsm?: { wrapped: string; token: string };
}

/** A record of the archive: one row of a table (`t`), or the closing `end`. */
export type ArchiveRecord =
  { t: 'end'; counts: Record<string, number> } | { t: string; r: Record<string, unknown>; kek?: string };

export class ArchiveError extends Error {
  constructor(
    readonly messageKey: MessageKey,
    readonly params: MessageParams = {},
  ) {
    super(messageKey);
  }
}

const derive = (backupKey: Buffer, salt: Buffer, label: string) =>
  Buffer.from(hkdfSync('sha256', backupKey, salt, `ksp/backup/v1/${label}`, 32));

export const contentKey = (backupKey: Buffer, salt: Buffer) => derive(backupKey, salt, 'content');
/** The additional data of an HSM-bound backup's secret. */
export const hsmSecretAad = (salt: string) => `ksp/backup-hsm/${salt}`;
/**
 * The key an HSM-bound archive is written under instead of the backup key: opening it takes
 * the backup key and the secret only the same HSM key unseals.
 */
export const hsmBoundKey = (backupKey: Buffer, hsmSecret: Buffer, salt: Buffer) =>
  Buffer.from(hkdfSync('sha256', Buffer.concat([backupKey, hsmSecret]), salt, 'ksp/backup/v1/hsm-bound', 32));
/** Wraps domain KEKs inside the archive (so key material stays wrapped under them). */
export const kekWrapKey = (backupKey: Buffer, salt: Buffer) => derive(backupKey, salt, 'kek');
/** The additional data of a domain's KEK wrapped in an archive (under `kekWrapKey`). */
export const kekAad = (domainId: string) => `ksp/backup/kek/${domainId}`;

function frameAad(headerHash: Buffer, index: number, final: boolean): Buffer {
  const aad = Buffer.alloc(32 + 8 + 1);
  headerHash.copy(aad, 0);
  aad.writeBigUInt64BE(BigInt(index), 32);
  aad[40] = final ? 1 : 0;
  return aad;
}

function encodePrefix(header: ArchiveHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt16BE(header.format_version, MAGIC.length);
  prefix.writeUInt32BE(json.length, MAGIC.length + 2);
  return Buffer.concat([prefix, json]);
}

export interface ArchiveWriter {
  write(record: ArchiveRecord): Promise<void>;
  /** Writes the final frame and closes the file: its size and SHA-256. */
  finish(): Promise<{ size: number; sha256: string }>;
  abort(): Promise<void>;
}

/** Streams records into an archive file; at most one frame of plaintext is held. */
export function createArchiveWriter(path: string, backupKey: Buffer, header: ArchiveHeader): ArchiveWriter {
  const out: WriteStream = createWriteStream(path, { mode: 0o600, flags: 'wx' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const hash = createHash('sha256');
  const key = contentKey(backupKey, Buffer.from(header.salt, 'base64'));
  const prefix = encodePrefix(header);
  const headerHash = createHash('sha256').update(prefix).digest();
  let size = 0;
  let index = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  async function emit(bytes: Buffer): Promise<void> {
    hash.update(bytes);
    size += bytes.length;
    if (!out.write(bytes))
      await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
  }

  async function frame(final: boolean): Promise<void> {
    const plain = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    const iv = nonceBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(frameAad(headerHash, index++, final));
    const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
    const head = Buffer.alloc(5);
    head[0] = final ? 1 : 0;
    head.writeUInt32BE(ct.length, 1);
    await emit(Buffer.concat([head, iv, ct, cipher.getAuthTag()]));
  }

  const started = emit(prefix);
  return {
    async write(record) {
      await started;
      const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= CHUNK) await frame(false);
    },
    async finish() {
      await started;
      await frame(true);
      // end()'s callback also runs when the stream failed (the file could not be opened or
      // written): it is given the error, which must fail the archive, not complete it.
      await Promise.race([
        new Promise<void>((resolve, reject) =>
          out.end((err?: Error | null) => (err ? reject(err) : resolve())),
        ),
        failed,
      ]);
      if (out.errored) throw out.errored;
      key.fill(0);
      return { size, sha256: hash.digest('hex') };
    },
    async abort() {
      key.fill(0);
      // A stream that failed to open (or already failed) may have closed already: no 'close' comes.
      if (out.closed) return;
      await new Promise<void>((r) => {
        out.once('close', () => r());
        out.destroy();
      });
    },
  };
}

/** Reads and checks the clear header (magic, format version) without any key. */
export async function readArchiveHeader(path: string): Promise<ArchiveHeader> {
  const file = await open(path, 'r');
  try {
    const prefix = Buffer.alloc(PREFIX);
    const { bytesRead } = await file.read(prefix, 0, PREFIX, 0);
    if (bytesRead < PREFIX || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new ArchiveError('backup.malformed', { reason: 'no KSP backup signature' });
    }
    const version = prefix.readUInt16BE(MAGIC.length);
    if (version > BACKUP_FORMAT_VERSION) {
      throw new ArchiveError('backup.newerFormat', {
        version: String(version),
        supported: String(BACKUP_FORMAT_VERSION),
      });
    }
    if (version < 1) throw new ArchiveError('backup.malformed', { reason: `format version ${version}` });
    const length = prefix.readUInt32BE(MAGIC.length + 2);
    if (length > MAX_HEADER) throw new ArchiveError('backup.malformed', { reason: 'header too large' });
    const json = Buffer.alloc(length);
    const read = await file.read(json, 0, length, PREFIX);
    if (read.bytesRead < length) throw new ArchiveError('backup.truncated');
    let header: ArchiveHeader;
    try {
      header = JSON.parse(json.toString('utf8')) as ArchiveHeader;
    } catch {
      throw new ArchiveError('backup.malformed', { reason: 'header is not JSON' });
    }
    if (
      typeof header !== 'object' ||
      header === null ||
      header.format_version !== version ||
      typeof header.backup_key_id !== 'string' ||
      typeof header.salt !== 'string' ||
      typeof header.scope !== 'string' ||
      typeof header.domain_id !== 'string'
    ) {
      throw new ArchiveError('backup.malformed', { reason: 'header fields' });
    }
    return header;
  } finally {
    await file.close();
  }
}

/**
 * The records of an archive, each frame authenticated before any of its records is handed
 * out. Throws `ArchiveError` on a wrong key, a damaged, reordered or truncated file.
 */
export async function* readArchive(
  path: string,
  header: ArchiveHeader,
  backupKey: Buffer,
  backupKeyKcv: string,
): AsyncGenerator<ArchiveRecord> {
  if (backupKeyKcv !== header.backup_key_kcv) {
    throw new ArchiveError('backup.wrongKey', { id: header.backup_key_id });
  }
  const stream = createReadStream(path, { start: 0, highWaterMark: 256 * 1024 });
  const key = contentKey(backupKey, Buffer.from(header.salt, 'base64'));
  let buffered: Buffer = Buffer.alloc(0);
  let skipped = false;
  let headerHash: Buffer | null = null;
  let index = 0;
  let ended = false;
  let rest = '';
  try {
    for await (const piece of stream as AsyncIterable<Buffer>) {
      buffered = buffered.length ? Buffer.concat([buffered, piece]) : piece;
      if (!skipped) {
        const length = PREFIX + buffered.readUInt32BE(MAGIC.length + 2);
        if (buffered.length < length) continue;
        // The header as stored (not as re-encoded) is what the frames authenticate.
        headerHash = createHash('sha256').update(buffered.subarray(0, length)).digest();
        buffered = buffered.subarray(length);
        skipped = true;
      }
      while (buffered.length >= 5) {
        if (ended) throw new ArchiveError('backup.tampered', { chunk: String(index) });
        const final = buffered[0] === 1;
        if (buffered[0]! > 1) throw new ArchiveError('backup.tampered', { chunk: String(index) });
        const length = buffered.readUInt32BE(1);
        if (length > MAX_FRAME) throw new ArchiveError('backup.tampered', { chunk: String(index) });
        const total = 5 + 12 + length + 16;
        if (buffered.length < total) break;
        const decipher = createDecipheriv('aes-256-gcm', key, buffered.subarray(5, 17));
        decipher.setAAD(frameAad(headerHash!, index, final));
        decipher.setAuthTag(buffered.subarray(17 + length, total));
        let plain: Buffer;
        try {
          plain = Buffer.concat([decipher.update(buffered.subarray(17, 17 + length)), decipher.final()]);
        } catch {
          throw new ArchiveError('backup.tampered', { chunk: String(index) });
        }
        buffered = buffered.subarray(total);
        index++;
        ended = final;
        const text = rest + plain.toString('utf8');
        const lines = text.split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          if (line) yield JSON.parse(line) as ArchiveRecord;
        }
      }
    }
    if (!skipped) throw new ArchiveError('backup.truncated');
    if (!ended || buffered.length > 0 || rest) {
      throw ended
        ? new ArchiveError('backup.tampered', { chunk: String(index) })
        : new ArchiveError('backup.truncated');
    }
  } finally {
    key.fill(0);
    stream.destroy();
  }
}

export const newSalt = () => randomBytes(32).toString('base64');
