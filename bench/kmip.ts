/**
 * KMIP against REST (issue 33, "Benchmark"): AES-256-GCM encrypt of 64 bytes with the same key,
 * over persistent mutual-TLS KMIP connections and over the REST API (autocannon), at 16 and 64
 * clients, and KMIP batches of 10 encrypt items. For each engine it prints requests and items
 * per second, the server's CPU time per item, and the ratios the issue sets as targets:
 * KMIP encrypt at least as fast as REST encrypt; a batch of 10 at least 5 times the single-item
 * operation rate (items per second).
 *
 * Prints figures; never fails.
 *
 *   npm run build && npm run bench:kmip -w bench
 *   BENCH_ENGINES=sqlite BENCH_SECONDS=5 npm run bench:kmip -w bench
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import autocannon from 'autocannon';
import { api as contract } from '@ksp/contracts';
import {
  aesKey,
  api,
  ecP256,
  freePort,
  initialize,
  restEncryptRequest,
  runPerEngine,
  startServer,
  throwawayPostgres,
  type Engine,
} from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CLIENTS = [16, 64];
const BATCH = 10;

/* ---- the few TTLV items a KMIP Encrypt request needs (the codec is the server's; this is the client's) ---- */

const T = {
  RequestMessage: 0x420078,
  RequestHeader: 0x420077,
  ProtocolVersion: 0x420069,
  Major: 0x42006a,
  Minor: 0x42006b,
  BatchCount: 0x42000d,
  BatchItem: 0x42000f,
  Operation: 0x42005c,
  RequestPayload: 0x420079,
  UniqueIdentifier: 0x420094,
  Data: 0x4200c2,
  ResultStatus: 0x42007f,
};
const head = (tag: number, type: number, length: number) => {
  const b = Buffer.alloc(8);
  b.writeUIntBE(tag, 0, 3);
  b[3] = type;
  b.writeUInt32BE(length, 4);
  return b;
};
const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((8 - (b.length % 8)) % 8)]);
const structure = (tag: number, items: Buffer[]) => {
  const body = Buffer.concat(items);
  return Buffer.concat([head(tag, 0x01, body.length), body]);
};
const integer = (tag: number, v: number, type = 0x02) => {
  const b = Buffer.alloc(8);
  b.writeInt32BE(v, 0);
  return Buffer.concat([head(tag, type, 4), b]);
};
const text = (tag: number, v: string) =>
  Buffer.concat([head(tag, 0x07, Buffer.byteLength(v)), pad(Buffer.from(v))]);
const bytes = (tag: number, v: Buffer) => Buffer.concat([head(tag, 0x08, v.length), pad(v)]);

function encryptRequest(keyId: string, items: number): Buffer {
  const item = structure(T.BatchItem, [
    integer(T.Operation, 0x1f, 0x05),
    structure(T.RequestPayload, [text(T.UniqueIdentifier, keyId), bytes(T.Data, Buffer.alloc(64, 0x61))]),
  ]);
  return structure(T.RequestMessage, [
    structure(T.RequestHeader, [
      structure(T.ProtocolVersion, [integer(T.Major, 2), integer(T.Minor, 0)]),
      integer(T.BatchCount, items),
    ]),
    ...Array<Buffer>(items).fill(item),
  ]);
}

/** A KMIP client's certificate (its chain after it) and key, PEM. */
interface ClientIdentity {
  cert: string;
  key: string;
}

/** One client: a TLS connection sending a request, waiting for its answer, again, until `until`. */
async function kmipClient(
  port: number,
  identity: ClientIdentity,
  message: Buffer,
  until: () => boolean,
): Promise<{ requests: number; failed: number }> {
  const socket: TLSSocket = await new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...identity });
    s.once('secureConnect', () => {
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', reject);
  });
  let requests = 0;
  let failed = 0;
  let pending = Buffer.alloc(0);
  let answered: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (pending.length >= 8 && pending.length >= 8 + pending.readUInt32BE(4)) {
      const length = 8 + pending.readUInt32BE(4);
      // A failed item carries Result Status 1: look for it in the answer's bytes.
      if (pending.subarray(0, length).includes(Buffer.from([0x42, 0x00, 0x7f, 0x05, 0, 0, 0, 4, 0, 0, 0, 1])))
        failed++;
      pending = pending.subarray(length);
      answered?.();
    }
  });
  while (!until()) {
    await new Promise<void>((resolve) => {
      answered = resolve;
      socket.write(message);
    });
    requests++;
  }
  socket.destroy();
  return { requests, failed };
}

async function runKmip(
  cpuMs: () => number,
  port: number,
  identity: ClientIdentity,
  keyId: string,
  clients: number,
  items: number,
) {
  const message = encryptRequest(keyId, items);
  const load = async (seconds: number) => {
    const end = Date.now() + seconds * 1000;
    return Promise.all(
      Array.from({ length: clients }, () => kmipClient(port, identity, message, () => Date.now() >= end)),
    );
  };
  if (WARMUP) await load(WARMUP);
  const cpu0 = cpuMs();
  const done = await load(SECONDS);
  const cpu = (cpuMs() - cpu0) / 1000;
  const requests = done.reduce((s, d) => s + d.requests, 0);
  const failed = done.reduce((s, d) => s + d.failed, 0);
  return { perSecond: (requests * items) / SECONDS, cpuMsPerItem: (cpu * 1000) / (requests * items), failed };
}

async function runRest(cpuMs: () => number, base: string, token: string, keyId: string, clients: number) {
  const options = { ...restEncryptRequest(base, token, keyId), connections: clients };
  if (WARMUP) await autocannon({ ...options, duration: WARMUP });
  const cpu0 = cpuMs();
  const result = await autocannon({ ...options, duration: SECONDS });
  const cpu = (cpuMs() - cpu0) / 1000;
  const ok = result.requests.total - result.non2xx;
  return {
    perSecond: ok / SECONDS,
    cpuMsPerItem: (cpu * 1000) / Math.max(ok, 1),
    failed: result.non2xx + result.errors,
  };
}

async function runEngine(engine: Engine): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-bench-kmip-'));
  const pgdb = engine === 'postgres' ? await throwawayPostgres() : null;
  const kmipPort = await freePort();
  ecP256('self-signed', { key: join(dir, 'server.key'), out: join(dir, 'server.pem') }, '127.0.0.1');
  const server = await startServer({
    KSP_DATA_DIR: join(dir, 'data'),
    KSP_KMIP_PORT: String(kmipPort),
    KSP_KMIP_CERT: join(dir, 'server.pem'),
    KSP_KMIP_KEY: join(dir, 'server.key'),
    ...(pgdb ? { KSP_DATABASE_URL: pgdb.url } : {}),
  });
  const rows: string[] = [];
  try {
    const token = await initialize(server.base);
    const keyId = await aesKey(server.base, token, 'bench-kmip');
    const roles = await api<{ data: { id: string; name: string }[] }>(
      server.base,
      `${contract.role.list.path}?page=1&page_size=50`,
      undefined,
      token,
    );
    ecP256('csr', { key: join(dir, 'client.key'), out: join(dir, 'client.csr') }, 'bench');
    const made = await api<{ certificate_pem: string; chain_pem: string }>(
      server.base,
      contract.kmip.create.path,
      {
        name: 'bench',
        role_id: roles.data.find((r) => r.name === 'Administrator')!.id,
        csr: readFileSync(join(dir, 'client.csr'), 'utf8'),
      },
      token,
    );
    const identity = {
      cert: made.certificate_pem + made.chain_pem,
      key: readFileSync(join(dir, 'client.key'), 'utf8'),
    };
    const cpuMs = () => server.cpuMs();
    for (const clients of CLIENTS) {
      const rest = await runRest(cpuMs, server.base, token, keyId, clients);
      const kmip = await runKmip(cpuMs, kmipPort, identity, keyId, clients, 1);
      const batch = await runKmip(cpuMs, kmipPort, identity, keyId, clients, BATCH);
      const fmt = (n: number) => n.toFixed(0);
      const ms = (n: number) => n.toFixed(3);
      rows.push(
        `| ${engine} | ${clients} | ${fmt(rest.perSecond)} (${ms(rest.cpuMsPerItem)} ms) | ${fmt(kmip.perSecond)} (${ms(kmip.cpuMsPerItem)} ms) | ${fmt(batch.perSecond)} (${ms(batch.cpuMsPerItem)} ms) | ${(kmip.perSecond / rest.perSecond).toFixed(2)} | ${(batch.perSecond / kmip.perSecond).toFixed(2)} | ${rest.failed + kmip.failed + batch.failed} |`,
      );
    }
  } finally {
    await server.stop();
    await pgdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

runPerEngine({
  file: 'bench-kmip.md',
  title: `KMIP vs REST, AES-256-GCM encrypt of 64 B, ${SECONDS} s per run (targets: KMIP/REST ≥ 1; batch-of-${BATCH} items/s ÷ single ≥ 5)`,
  header:
    '| engine | clients | REST encrypt/s (CPU per op) | KMIP encrypt/s (CPU per op) | KMIP batch items/s (CPU per item) | KMIP/REST | batch/single | failed |',
  runEngine,
});
