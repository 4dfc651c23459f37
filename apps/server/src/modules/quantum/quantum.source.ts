import { open, stat, type FileHandle } from 'node:fs/promises';
import type { QuantumFailure, QuantumSourceType } from '@ksp/contracts';

/** A read that did not give the bytes asked for: why, in the status's terms. */
export class SourceError extends Error {
  constructor(
    readonly failure: QuantumFailure,
    message: string,
  ) {
    super(message);
  }
}

/** How long one read may take before the source counts as unreachable. */
export const READ_TIMEOUT_MS = 5_000;

export interface SourceSpec {
  source_type: QuantumSourceType;
  endpoint: string;
}

/** Reads `length` bytes from a source; `position` is the next offset of a regular file. */
export interface SourceReader {
  read(length: number): Promise<Buffer>;
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SourceError('unreachable', `${what}: no answer within ${READ_TIMEOUT_MS} ms`)),
      READ_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Opens `path` for reading (a failure is "unreachable"), runs `work` on it, then closes it, all within the timeout. */
function readingFile<T>(path: string, work: (handle: FileHandle) => Promise<T>): Promise<T> {
  return withTimeout(
    (async () => {
      const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
        throw new SourceError('unreachable', `${path}: ${err.code ?? err.message}`);
      });
      try {
        return await work(handle);
      } finally {
        await handle.close();
      }
    })(),
    path,
  );
}

/** A character device (/dev/hwrng, a USB or PCIe QRNG's node): read until the block is full. */
function deviceReader(path: string): SourceReader {
  return {
    read: (length) =>
      readingFile(path, async (handle) => {
        const out = Buffer.alloc(length);
        let filled = 0;
        while (filled < length) {
          const { bytesRead } = await handle.read(out, filled, length - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled < length) throw new SourceError('short-read', `${path} gave ${filled} of ${length} bytes`);
        return out;
      }),
  };
}

/**
 * A regular file read in order from where the last read stopped (recorded QRNG output, and
 * the tests): bytes are never read twice, and its end makes the source "exhausted".
 */
function fileReader(path: string): SourceReader & { position: number } {
  const reader = {
    position: 0,
    read: (length: number) =>
      readingFile(path, async (handle) => {
        const out = Buffer.alloc(length);
        const { bytesRead } = await handle.read(out, 0, length, reader.position);
        reader.position += bytesRead;
        if (bytesRead < length)
          throw new SourceError(
            'exhausted',
            `${path} has ${bytesRead} bytes left at offset ${reader.position - bytesRead}, ${length} asked`,
          );
        return out;
      }),
  };
  return reader;
}

/** A network QRNG: `GET endpoint` answers raw bytes; only the first `length` are used. */
function networkReader(url: string): SourceReader {
  return {
    async read(length) {
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { accept: 'application/octet-stream' },
          signal: AbortSignal.timeout(READ_TIMEOUT_MS),
          redirect: 'error',
        });
      } catch (err) {
        throw new SourceError('unreachable', `${url}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new SourceError('unreachable', `${url}: HTTP ${response.status}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const reader = response.body.getReader();
      try {
        while (size < length) {
          const next = (await reader.read()) as { done: boolean; value?: Uint8Array };
          if (next.done || !next.value) break;
          chunks.push(Buffer.from(next.value));
          size += next.value.length;
        }
      } catch (err) {
        throw new SourceError('unreachable', `${url}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        await reader.cancel().catch(() => undefined);
      }
      if (size < length) throw new SourceError('short-read', `${url} gave ${size} of ${length} bytes`);
      return Buffer.concat(chunks).subarray(0, length);
    },
  };
}

export function readerFor(spec: SourceSpec): SourceReader & { position?: number } {
  switch (spec.source_type) {
    case 'device':
      return deviceReader(spec.endpoint);
    case 'file':
      return fileReader(spec.endpoint);
    case 'network':
      return networkReader(spec.endpoint);
  }
}

/** Why an endpoint cannot be a source of its type, as a message key and its values; null if it can. */
export async function endpointProblem(
  spec: SourceSpec,
): Promise<{ key: string; values?: Record<string, string> } | null> {
  const { endpoint } = spec;
  if (!endpoint) return { key: 'quantum.endpointRequired' };
  if (spec.source_type === 'network') {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return { key: 'quantum.endpointUrl' };
    }
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : { key: 'quantum.endpointUrl' };
  }
  if (!endpoint.startsWith('/')) return { key: 'quantum.endpointAbsolute' };
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(endpoint);
    const handle = await open(endpoint, 'r');
    await handle.close();
  } catch {
    return { key: 'quantum.endpointMissing', values: { path: endpoint } };
  }
  if (spec.source_type === 'device' && !info.isCharacterDevice())
    return { key: 'quantum.endpointNotDevice', values: { path: endpoint } };
  if (spec.source_type === 'file' && !info.isFile())
    return { key: 'quantum.endpointNotFile', values: { path: endpoint } };
  return null;
}
