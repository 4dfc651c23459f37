/**
 * Certificates benchmark (issue 11): prints figures, never fails a test run.
 *
 *   npm run build && npm run bench:cert -w bench
 *
 * For each engine (SQLite in a fresh data directory, PostgreSQL in a throwaway database this
 * script creates and drops) it starts the built server, initializes it and creates an EC P-256
 * root CA through the API, then:
 *
 *  - issues EC P-256 client certificates from one CSR (`POST /v1/ksp/cert/issue`) with
 *    autocannon at 16 clients, and in the same run, in this process, builds the same
 *    certificate with the PKI engine directly (`buildCertificate` and a P-256 signer), single
 *    thread, from the CSR's parts and, a fourth loop, from the CSR's PEM (read and signature
 *    check included, as the server does); target: the API issues at ≥ 50 % of the direct rate;
 *  - stops the server, writes BENCH_REVOKED (100,000 by default) revoked certificates of that CA
 *    straight into the database, restarts it and times the first `crl-der` download, which
 *    builds the CRL (target ≤ 2 s; the entries are counted with `openssl crl`), then loads the
 *    public distribution point `GET /pki/crl/<ca>.crl` with autocannon at 16 clients (target
 *    ≥ 5,000 fetches/s). The empty CRL of the CA is loaded the same way before the seeding, so
 *    the cost of the request path and of the CRL's size can be told apart.
 *
 *   BENCH_SECONDS    length of each load run (default 10)
 *   BENCH_REVOKED    revoked certificates written for the CRL (default 100000)
 *   BENCH_ENGINES    comma-separated subset of sqlite,postgres (default both)
 *   BENCH_PROFILE    a directory: the server writes a V8 CPU profile (.cpuprofile) there at exit
 *   BENCH_PG_URL     PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { api as contract } from '@ksp/contracts';
import type { CertCertificateTable } from '../apps/server/src/platform/db/schema.js';
import type * as Asymmetric from '../apps/server/src/platform/crypto/asymmetric.js';
import type * as Generate from '../apps/server/src/platform/crypto/generate.js';
import type * as Certificate from '../apps/server/src/modules/cert/pki/certificate.js';
import type * as Csr from '../apps/server/src/modules/cert/pki/csr.js';
import type * as Name from '../apps/server/src/modules/cert/pki/name.js';
import type * as SignerModule from '../apps/server/src/modules/cert/pki/signer.js';
import {
  api,
  child,
  ecP256,
  ENGINES,
  freePort,
  initialize,
  login,
  root,
  startServer,
  pgInsertRows,
  serverData,
  seedSqliteFile,
  sqliteInsert,
  waitFor,
  withPgClient,
  type Child,
  type Engine,
} from './support.js';

// The engine as the server runs it: compiled (npm run build first). Types come from the
// sources, so the bench typechecks before anything is built.
const dist = (path: string) => new URL(`../apps/server/dist/${path}.js`, import.meta.url).href;
const { buildCertificate, certificateSubject, newSerial } = (await import(
  dist('modules/cert/pki/certificate')
)) as typeof Certificate;
const { parseCsr } = (await import(dist('modules/cert/pki/csr'))) as typeof Csr;
const { parseName } = (await import(dist('modules/cert/pki/name'))) as typeof Name;
const { signerFromMaterial } = (await import(dist('modules/cert/pki/signer'))) as typeof SignerModule;
const { ecdsaSign, parsePrivateKey } = (await import(
  dist('platform/crypto/asymmetric')
)) as typeof Asymmetric;
const { generateKey } = (await import(dist('platform/crypto/generate'))) as typeof Generate;

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const REVOKED = Number(process.env.BENCH_REVOKED ?? 100_000);
const PROFILE = process.env.BENCH_PROFILE;
const CLIENTS = 16;
const DIRECT_SECONDS = 3;
const TARGET_ISSUE_SHARE = 0.5;
const TARGET_CRL_BUILD_MS = 2000;
const TARGET_CRL_FETCHES = 5000;

const load1 = () => loadavg()[0]!.toFixed(2);

/* ---- the CSR ---- */

/** One EC P-256 PKCS#10 request from openssl (node:crypto makes none), PEM. */
function makeCsr(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-bench-csr-'));
  try {
    ecP256('csr', { key: join(dir, 'key.pem'), out: join(dir, 'csr.pem') }, 'bench');
    return readFileSync(join(dir, 'csr.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/* ---- load runs ---- */

interface LoadResult {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
  /** Server CPU time per request, µs (all its threads). */
  cpu: number;
  /** Response bytes per second, MB. */
  mbps: number;
  load: string;
}

async function load(
  server: Child & { base: string },
  path: string,
  options: { token?: string; body?: () => unknown; headers?: Record<string, string>; expect?: number },
): Promise<LoadResult> {
  const cpuBefore = server.cpuMs();
  const post = options.body !== undefined;
  const body = options.body;
  const result = await autocannon({
    url: server.base + path,
    connections: CLIENTS,
    duration: DURATION,
    method: post ? 'POST' : 'GET',
    headers: {
      ...(options.token ? { token: options.token } : {}),
      ...(post ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    requests: [{ setupRequest: (req) => (body ? { ...req, body: JSON.stringify(body()) } : req) }],
  });
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors:
      (options.expect === undefined
        ? result.non2xx
        : result.requests.total - (result.statusCodeStats?.[`${options.expect}`]?.count ?? 0)) +
      result.errors +
      result.timeouts,
    total: result.requests.total,
    cpu: ((server.cpuMs() - cpuBefore) * 1000) / Math.max(1, result.requests.total),
    mbps: result.throughput.average / 1e6,
    load: load1(),
  };
}

/**
 * The same CRL bytes from a bare node:http server in its own process, loaded the same way: the
 * ceiling of this client and machine for answers of that size.
 */
async function bareCrl(der: Buffer): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-bench-bare-crl-'));
  const file = join(dir, 'ca.crl');
  writeFileSync(file, der);
  const port = await freePort();
  const code =
    "const b=require('fs').readFileSync(process.argv[1]);" +
    "require('http').createServer((q,s)=>{s.setHeader('content-type','application/pkix-crl');s.end(b)})" +
    ".listen(Number(process.argv[2]),'127.0.0.1')";
  const bare = child(['-e', code, file, String(port)]);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(base, '/');
    return await load({ ...bare, base }, '/', {});
  } finally {
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/* ---- the direct rate ---- */

interface DirectResult {
  name: string;
  rate: number;
  load: string;
}

async function direct(name: string, fn: () => unknown): Promise<DirectResult> {
  for (let i = 0; i < 50; i++) await fn();
  let count = 0;
  const start = performance.now();
  const end = start + DIRECT_SECONDS * 1000;
  while (performance.now() < end) {
    await fn();
    count++;
  }
  return { name, rate: count / ((performance.now() - start) / 1000), load: load1() };
}

/**
 * The certificate the API issues, built by the engine in this process: the CSR's subject and
 * key, a client profile, CRL and OCSP URLs, signed by a P-256 CA key. Once with the signer
 * over the stored material (`signerFromMaterial`, which parses the PKCS#8 each time), once
 * with the parsed key object the server's key cache keeps, and the bare ECDSA signature.
 */
async function directRates(csrPem: string): Promise<DirectResult[]> {
  const csr = parseCsr(csrPem);
  const generated = generateKey('EC-P256');
  if (!generated.publicKey) throw new Error('generateKey(EC-P256) gave no public key');
  const caKey = { material: generated.material, publicKey: generated.publicKey };
  const caName = parseName({ cn: 'KSP bench direct root' });
  const materialSigner = signerFromMaterial('EC-P256', caKey.material, caKey.publicKey);
  const keyObject = parsePrivateKey(caKey.material);
  const cachedSigner = {
    ...materialSigner,
    sign: (data: Buffer) => Promise.resolve(ecdsaSign('EC-P256', keyObject, data)),
  };
  const now = new Date();
  const caCert = await buildCertificate({
    serial: newSerial(),
    issuerName: caName,
    subjectName: caName,
    notBefore: now,
    notAfter: new Date(now.getTime() + 3650 * 86_400_000),
    subjectSpki: caKey.publicKey,
    signer: materialSigner,
    profile: { kind: 'ca' },
  });
  const issuerName = certificateSubject(caCert);
  const leaf = (signer: typeof materialSigner) => () =>
    buildCertificate({
      serial: newSerial(),
      issuerName,
      subjectName: csr.subjectName,
      notBefore: new Date(),
      notAfter: new Date(Date.now() + 365 * 86_400_000),
      subjectSpki: csr.spki,
      signer,
      profile: { kind: 'end-entity', purpose: 'client', usage: 'signature', san: csr.san },
      crlUrl: 'http://127.0.0.1:8443/pki/crl/00000000-0000-7000-8000-000000000000.crl',
      ocspUrl: 'http://127.0.0.1:8443/pki/ocsp/00000000-0000-7000-8000-000000000000',
    });
  // What issuing from a CSR takes in process: read the PEM, check its signature, then build.
  const fromCsr = async () => {
    const read = parseCsr(csrPem);
    if (!read.signatureValid) throw new Error('the CSR signature does not verify');
    return buildCertificate({
      serial: newSerial(),
      issuerName,
      subjectName: read.subjectName,
      notBefore: new Date(),
      notAfter: new Date(Date.now() + 365 * 86_400_000),
      subjectSpki: read.spki,
      signer: cachedSigner,
      profile: { kind: 'end-entity', purpose: 'client', usage: 'signature', san: read.san },
      crlUrl: 'http://127.0.0.1:8443/pki/crl/00000000-0000-7000-8000-000000000000.crl',
      ocspUrl: 'http://127.0.0.1:8443/pki/ocsp/00000000-0000-7000-8000-000000000000',
    });
  };
  const tbsLike = randomBytes(400);
  return [
    await direct('buildCertificate, signerFromMaterial', leaf(materialSigner)),
    await direct('buildCertificate, parsed key object', leaf(cachedSigner)),
    await direct('ecdsaSign P-256 alone (400 B, key object)', () => ecdsaSign('EC-P256', keyObject, tbsLike)),
    await direct('parseCsr (PEM, signature check) + buildCertificate, parsed key object', fromCsr),
  ];
}

/* ---- the revoked certificates ---- */

const DAY_MS = 86_400_000;

function revokedRow(n: number, caId: string, domainId: string, at: number): CertCertificateTable {
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  const created = new Date(at - 360 * DAY_MS + Math.floor((n * 300 * DAY_MS) / REVOKED)).toISOString();
  return {
    id: `00000000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`,
    domain_id: domainId,
    ca_id: caId,
    name: `revoked-${n}`,
    cn: `revoked-${n}`,
    subject: `CN=revoked-${n}`,
    issuer: 'CN=KSP bench root',
    purpose: 'client',
    usage: 'signature',
    algorithm: 'EC-P256',
    key_bits: 256,
    serial: serial.toString('hex').toUpperCase(),
    not_before: created,
    not_after: new Date(at + 200 * DAY_MS).toISOString(),
    fingerprint: randomBytes(32).toString('hex').toUpperCase(),
    // The CRL reads serial, revoked_at, reason and not_after only.
    cert_der: PLACEHOLDER_DER,
    csr_der: null,
    key_id: null,
    exportable: 0,
    source: 'csr',
    san: '{"dns":[],"ips":[],"emails":[]}',
    key_usage: '{"key_usage":[],"ext_key_usage":[]}',
    revocation_reason: 'keyCompromise',
    revoked_at: new Date(Date.parse(created) + 30 * DAY_MS).toISOString(),
    deleted_at: null,
    created_at: created,
  };
}

const PLACEHOLDER_DER = randomBytes(450).toString('base64');
const BATCH = 10_000;
const INTEGER_COLUMNS = new Set(['key_bits', 'exportable']);

function seedSqlite(file: string, caId: string): void {
  seedSqliteFile(file, {
    total: REVOKED,
    batch: BATCH,
    writer: (db) => {
      const { domain_id } = db.prepare('select domain_id from cert_ca where id = ?').get(caId) as {
        domain_id: string;
      };
      const at = Date.now();
      const insert = sqliteInsert(db, 'cert_certificate', Object.keys(revokedRow(0, caId, domain_id, at)));
      return (n) => insert.run(Object.values(revokedRow(n, caId, domain_id, at)));
    },
    after: (db) => db.prepare('delete from cert_crl where ca_id = ?').run(caId),
  });
}

/** Multi-row inserts as one array per column (`unnest`), BATCH rows per statement. */
function seedPostgres(url: string, caId: string): Promise<void> {
  return withPgClient(url, async (client) => {
    const { rows } = await client.query<{ domain_id: string }>(
      'select domain_id from cert_ca where id = $1',
      [caId],
    );
    const domainId = rows[0]!.domain_id;
    const at = Date.now();
    const columns = Object.keys(revokedRow(0, caId, domainId, at));
    const types = columns.map((c) => (INTEGER_COLUMNS.has(c) ? 'int' : 'text'));
    for (let n = 0; n < REVOKED; n += BATCH) {
      const values = Array.from({ length: Math.min(REVOKED, n + BATCH) - n }, (_, i): unknown[] =>
        Object.values(revokedRow(n + i, caId, domainId, at)),
      );
      await pgInsertRows(client, 'cert_certificate', columns, types, values);
    }
    await client.query('delete from cert_crl where ca_id = $1', [caId]);
    // What autovacuum does after a bulk load, done now so the planner sees the rows.
    await client.query('vacuum analyze cert_certificate');
  });
}

/* ---- one engine ---- */

interface EngineResult {
  engine: Engine;
  issue: LoadResult;
  issued: number;
  direct: DirectResult[];
  crlEmpty: LoadResult;
  emptyBytes: number;
  seedSeconds: number;
  crlBuildMs: number;
  crlBytes: number;
  crlEntries: number;
  crlSecondMs: number;
  crl: LoadResult;
  /** The same URL asked with the CRL's ETag: 304 without a body, as a relying party's cache does. */
  crlConditional: LoadResult;
  crlBare: LoadResult;
}

interface FileDownload {
  filename: string;
  content_type: string;
  content: string;
}

/** Entries of a DER CRL as openssl reads them. */
function opensslCrlEntries(der: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-bench-crl-'));
  try {
    const file = join(dir, 'ca.crl');
    writeFileSync(file, der);
    const text = execFileSync('openssl', ['crl', '-inform', 'DER', '-in', file, '-noout', '-text'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    return text.match(/Serial Number/g)?.length ?? 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timedDownload(base: string, caId: string, token: string) {
  const t0 = performance.now();
  const file = await api<FileDownload>(
    base,
    `${contract.cert.caDownload.path}?id=${caId}&kind=crl-der`,
    undefined,
    token,
  );
  return { ms: performance.now() - t0, der: Buffer.from(file.content, 'base64') };
}

async function runEngine(engine: Engine, csr: string): Promise<EngineResult> {
  const data = await serverData(engine, 'ksp-bench-cert-');
  const nodeArgs = PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : [];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const say = (what: string) => console.error(`${engine}: ${what} (load ${load1()})`);
  try {
    server = await startServer(data.env, nodeArgs);
    const token = await initialize(server.base);
    const ca = await api<{ id: string }>(
      server.base,
      contract.cert.caCreate.path,
      { name: 'bench-root', cn: 'KSP bench root', algorithm: 'EC-P256' },
      token,
    );
    await api(server.base, contract.cert.caSelfSign.path, { id: ca.id }, token);
    // One issue checked through the envelope before the load.
    const sample = await api<{ algorithm: string; serial: string }>(
      server.base,
      contract.cert.issue.path,
      { name: 'bench-sample', ca_id: ca.id, csr, purpose: 'client' },
      token,
    );
    if (sample.algorithm !== 'EC-P256') throw new Error(`issued a ${sample.algorithm} certificate`);

    say('issuing through the API');
    let n = 0;
    const issue = await load(server, contract.cert.issue.path, {
      token,
      body: () => ({ name: `bench-${n++}`, ca_id: ca.id, csr, purpose: 'client' }),
    });
    // Answers with code ≠ 0 come with HTTP errors, but the count of stored certificates says it.
    const listed = await api<{ total: number }>(
      server.base,
      `${contract.cert.list.path}?ca_id=${ca.id}&page=1&page_size=1`,
      undefined,
      token,
    );
    const issued = listed.total - 1;
    say('direct rates');
    const directs = await directRates(csr);

    say('empty CRL fetches');
    const crlPath = `/pki/crl/${ca.id}.crl`;
    const empty = await fetch(server.base + crlPath);
    const emptyBytes = (await empty.arrayBuffer()).byteLength;
    if (empty.status !== 200) throw new Error(`${crlPath}: HTTP ${empty.status}`);
    const crlEmpty = await load(server, crlPath, {});

    // Seeded with the server stopped, as a restore would be, so its caches start cold.
    await server.stop();
    say(`writing ${REVOKED} revoked certificates`);
    const t0 = performance.now();
    if (engine === 'sqlite') seedSqlite(join(data.dir, 'ksp.sqlite'), ca.id);
    else await seedPostgres(data.databaseUrl!, ca.id);
    const seedSeconds = (performance.now() - t0) / 1000;
    server = await startServer(data.env, nodeArgs);
    const session = await login(server.base);
    // Warm the request path (not the CRL) so the build is what the first download times.
    await api(server.base, `${contract.cert.caDetail.path}?id=${ca.id}`, undefined, session.token);

    say('building the CRL');
    const first = await timedDownload(server.base, ca.id, session.token);
    const second = await timedDownload(server.base, ca.id, session.token);
    const crlEntries = opensslCrlEntries(first.der);
    const check = await fetch(server.base + crlPath);
    const served = Buffer.from(await check.arrayBuffer());
    if (check.status !== 200 || !served.equals(first.der))
      throw new Error(`${crlPath} does not serve the CRL just built`);

    say('CRL fetches');
    const crl = await load(server, crlPath, {});
    say('conditional CRL fetches (If-None-Match)');
    const etag = check.headers.get('etag');
    if (!etag) throw new Error(`${crlPath} answers no ETag`);
    const crlConditional = await load(server, crlPath, { headers: { 'if-none-match': etag }, expect: 304 });
    say('the same bytes from a bare node:http server');
    const crlBare = await bareCrl(first.der);
    return {
      engine,
      issue,
      issued,
      direct: directs,
      crlEmpty,
      emptyBytes,
      seedSeconds,
      crlBuildMs: first.ms,
      crlBytes: first.der.length,
      crlEntries,
      crlSecondMs: second.ms,
      crl,
      crlConditional,
      crlBare,
    };
  } finally {
    await server?.stop();
    await data.remove();
  }
}

/* ---- the report ---- */

function report(results: EngineResult[]): string {
  const f = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const yes = (ok: boolean) => (ok ? 'yes' : 'NO');
  const lines = [
    `KSP certificates benchmark — ${new Date().toISOString()} — node ${process.version}, ${DURATION} s per load run, ${CLIENTS} clients, direct loops ${DIRECT_SECONDS} s single thread`,
    '',
    '| engine | scenario | rate /s | p50 ms | p99 ms | errors | server CPU µs/req | MB/s | load (1 min) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const row = (name: string, l: LoadResult) =>
      `| ${r.engine} | ${name} | ${f(l.rate)} | ${f(l.p50, 1)} | ${f(l.p99, 1)} | ${l.errors} | ${f(l.cpu)} | ${f(l.mbps, 1)} | ${l.load} |`;
    lines.push(row(`issue EC P-256 from a CSR (API; ${f(r.issued)} stored)`, r.issue));
    for (const d of r.direct)
      lines.push(
        `| ${r.engine} | direct: ${d.name} | ${f(d.rate)} | - | - | - | ${f(1e6 / d.rate)} (this process) | - | ${d.load} |`,
      );
    lines.push(row(`GET /pki/crl (empty CRL, ${f(r.emptyBytes)} B)`, r.crlEmpty));
    lines.push(row(`GET /pki/crl (${f(r.crlEntries)} entries, ${f(r.crlBytes / 1e6, 2)} MB)`, r.crl));
    lines.push(row('the same CRL, If-None-Match with its ETag (304)', r.crlConditional));
    lines.push(row('the same CRL bytes from a bare node:http server', r.crlBare));
  }
  lines.push(
    '',
    '| engine | revoked rows written | CRL build (first crl-der download) | second download (cached) | CRL size | entries (openssl) |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${f(REVOKED)} in ${f(r.seedSeconds, 1)} s | ${f(r.crlBuildMs)} ms | ${f(r.crlSecondMs)} ms | ${f(r.crlBytes)} B | ${f(r.crlEntries)} |`,
    ),
    '',
    '| target | met | figure |',
    '|---|---|---|',
  );
  for (const r of results) {
    const [material, cached, , fromCsr] = r.direct;
    const share = (d: DirectResult | undefined) => (d ? r.issue.rate / d.rate : 0);
    const byCpu = (d: DirectResult | undefined) => (d ? 1e6 / d.rate / r.issue.cpu : 0);
    const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
    lines.push(
      `| ${r.engine}: issuing ≥ 50 % of the direct rate (signerFromMaterial) | ${yes(share(material) >= TARGET_ISSUE_SHARE)} | ${pct(share(material))} (by CPU per certificate: ${pct(byCpu(material))}) |`,
      `| ${r.engine}: issuing ≥ 50 % of the direct rate (parsed key object, as the key cache) | ${yes(share(cached) >= TARGET_ISSUE_SHARE)} | ${pct(share(cached))} (by CPU per certificate: ${pct(byCpu(cached))}) |`,
      `| ${r.engine}: issuing ≥ 50 % of issuing from the CSR in process (read, check, build; parsed key object) | ${yes(share(fromCsr) >= TARGET_ISSUE_SHARE)} | ${pct(share(fromCsr))} (by CPU per certificate: ${pct(byCpu(fromCsr))}) |`,
      `| ${r.engine}: issuing answers without errors | ${yes(r.issue.errors === 0 && r.issued >= r.issue.total && r.issued <= r.issue.total + CLIENTS)} | ${r.issue.errors} errors, ${f(r.issued)} stored for ${f(r.issue.total)} answers (+ up to ${CLIENTS} in flight at the end) |`,
      `| ${r.engine}: ${f(REVOKED)}-entry CRL built in ≤ 2 s | ${yes(r.crlBuildMs <= TARGET_CRL_BUILD_MS && r.crlEntries === REVOKED)} | ${f(r.crlBuildMs)} ms, ${f(r.crlEntries)} entries |`,
      `| ${r.engine}: CRL served from cache ≥ 5,000 fetches/s | ${yes(r.crl.rate >= TARGET_CRL_FETCHES && r.crl.errors === 0)} | ${f(r.crl.rate)}/s (${f(r.crl.mbps)} MB/s); empty CRL ${f(r.crlEmpty.rate)}/s, same bytes from bare node:http ${f(r.crlBare.rate)}/s |`,
      `| ${r.engine}: cached CRL revalidated (If-None-Match → 304) ≥ 5,000 fetches/s | ${yes(r.crlConditional.rate >= TARGET_CRL_FETCHES && r.crlConditional.errors === 0)} | ${f(r.crlConditional.rate)}/s, ${r.crlConditional.errors} answers other than 304 |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  console.error(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const csr = makeCsr();
  const results: EngineResult[] = [];
  for (const engine of ENGINES) results.push(await runEngine(engine, csr));
  const text = report(results);
  console.log(text);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  writeFileSync(join(root, '.tmp', 'bench-cert.md'), `${text}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
