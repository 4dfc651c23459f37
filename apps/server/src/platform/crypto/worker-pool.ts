import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { algorithmInfo, type AlgorithmId } from '@ksp/contracts';
import { Piscina } from 'piscina';
import { importTask, type WorkerResult, type WorkerTask } from './crypto-worker.js';
import { invalidKey } from './crypto-error.js';
import { generateKey, type GeneratedKey } from './generate.js';
import { isPqcSignatureAlgorithm, pqcSign, type PqcImportFormat } from './post-quantum.js';

/** A post-quantum key read by `pqcImport`: the private key (seed and expanded formats) and the public key. */
export interface PqcImported {
  secretKey?: Buffer;
  publicKey: Buffer;
}

function imported(result: WorkerResult): PqcImported {
  if ('refused' in result) throw invalidKey(result.refused);
  if (!('imported' in result)) throw new Error('worker answered no key');
  const { secretKey, publicKey } = result.imported;
  return { ...(secretKey ? { secretKey: Buffer.from(secretKey) } : {}), publicKey: Buffer.from(publicKey) };
}

/** Post-quantum work runs in JavaScript (no native PQC in Node 20): milliseconds to seconds per call. */
export function isHeavy(algorithm: AlgorithmId): boolean {
  const family = algorithmInfo(algorithm).family;
  return family === 'ML-DSA' || family === 'SLH-DSA' || family === 'ML-KEM';
}

/**
 * A pool of worker threads for the heavy operations (`threads` of them; 0 runs them on
 * the calling thread). The built server runs the compiled worker; from TypeScript sources
 * (`npm run dev`) the worker is loaded through tsx, which is much slower at run time.
 */
export function createCryptoPool(threads: number) {
  if (threads === 0) {
    return {
      generate: (algorithm: AlgorithmId): Promise<GeneratedKey> => Promise.resolve(generateKey(algorithm)),
      sign: (algorithm: AlgorithmId, key: Buffer, data: Buffer, context?: Buffer): Promise<Buffer> => {
        if (!isPqcSignatureAlgorithm(algorithm))
          return Promise.reject(new Error(`${algorithm} is not a pool signer`));
        return Promise.resolve(pqcSign(algorithm, key, data, context ? { context } : {}));
      },
      import: (algorithm: AlgorithmId, format: PqcImportFormat, bytes: Buffer): Promise<PqcImported> => {
        try {
          return Promise.resolve(imported(importTask(algorithm, format, bytes)));
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      },
      close: () => Promise.resolve(),
    };
  }
  const compiled = fileURLToPath(new URL('./crypto-worker.js', import.meta.url));
  const source = fileURLToPath(new URL('./crypto-worker.ts', import.meta.url));
  const fromSource = !existsSync(compiled);
  const pool = new Piscina({
    filename: fromSource ? source : compiled,
    maxThreads: threads,
    minThreads: 1,
    idleTimeout: 60_000,
    ...(fromSource ? { execArgv: ['--import', 'tsx', '--conditions=source'] } : {}),
  });
  const runTask = (task: WorkerTask) => pool.run(task) as Promise<WorkerResult>;
  return {
    async generate(algorithm: AlgorithmId): Promise<GeneratedKey> {
      const result = await runTask({ op: 'generate', algorithm });
      if (!('material' in result)) throw new Error('worker answered no key');
      return {
        algorithm,
        material: Buffer.from(result.material),
        ...(result.publicKey ? { publicKey: Buffer.from(result.publicKey) } : {}),
      };
    },
    async sign(algorithm: AlgorithmId, key: Buffer, data: Buffer, context?: Buffer): Promise<Buffer> {
      const result = await runTask({ op: 'sign', algorithm, key, data, ...(context ? { context } : {}) });
      if (!('signature' in result)) throw new Error('worker answered no signature');
      return Buffer.from(result.signature);
    },
    async import(algorithm: AlgorithmId, format: PqcImportFormat, bytes: Buffer): Promise<PqcImported> {
      return imported(await runTask({ op: 'import', algorithm, format, bytes }));
    },
    close: () => pool.destroy(),
  };
}

export type CryptoPool = ReturnType<typeof createCryptoPool>;
