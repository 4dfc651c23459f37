import {
  QUANTUM_DEFAULTS,
  type Input,
  type MessageKey,
  type QuantumFailure,
  type QuantumSettings,
  type QuantumSourceType,
  type QuantumState,
  type QuantumStatus,
  type api,
} from '@ksp/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { SYSTEM_SUBJECT, type AuditEntry, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import {
  HealthTests,
  STARTUP_SAMPLES,
  absorbEntropy,
  aptCutoff,
  dropEntropyPool,
  rctCutoff,
} from '../../platform/crypto/entropy.js';
import type { Db } from '../../platform/db/database.js';
import type { QuantumSourceTable } from '../../platform/db/schema.js';
import { invalid, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { SourceError, endpointProblem, readerFor, type SourceReader } from './quantum.source.js';
import { readQuantumSource, saveQuantumSource } from './quantum.store.js';

/** Start-up tests read at least this much: 1,024 samples and 4 KiB, whichever is more. */
const STARTUP_BYTES = Math.max(STARTUP_SAMPLES, 4096);

interface Outcome {
  ok: boolean;
  failure: QuantumFailure | null;
  detail: string | null;
  bytes: number;
  ms: number;
}

const fromRow = (row: QuantumSourceTable | undefined): QuantumSettings & { updated_at: string | null } =>
  row
    ? {
        enabled: row.enabled === 1,
        source_type: row.source_type as QuantumSourceType,
        endpoint: row.endpoint,
        min_entropy: row.min_entropy,
        block_bytes: row.block_bytes,
        interval_seconds: row.interval_seconds,
        updated_at: row.updated_at,
      }
    : { enabled: false, source_type: 'device', endpoint: '', ...QUANTUM_DEFAULTS, updated_at: null };

/**
 * The quantum entropy source on this node: reads a block every `interval_seconds`, runs the
 * SP 800-90B continuous tests over it and, when it passes, absorbs it into the pool that
 * `platform/crypto/random.ts` mixes into every output. A failure (or an unreachable source)
 * turns the status invalid, drops the pool, and is audited as an alarm; later checks run the
 * start-up tests again and bring the source back when it passes them.
 *
 * It is a timer of each node, not a job of the jobs service: every node mixes its own pool,
 * so every node must read the source (jobs run on one node at a time).
 */
export function createQuantumService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  nodeName: string;
  log?: FastifyBaseLogger;
}) {
  const { db, clock, audit, nodeName } = deps;
  let settings = fromRow(undefined);
  let reader: SourceReader | null = null;
  let tests: HealthTests | null = null;
  let status: QuantumStatus = 'disabled';
  let failure: QuantumFailure | null = null;
  let detail: string | null = null;
  let lastCheck: string | null = null;
  let throughput: number | null = null;
  let bytesConsumed = 0;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  /** One read at a time: a slow device never piles reads up. */
  let running: Promise<Outcome> | null = null;

  /** A record that must not fail what it records: a write that fails is logged. */
  const recorded = (writing: Promise<void>) =>
    writing.catch((err: unknown) =>
      deps.log?.error({ err: err instanceof Error ? err.message : String(err) }, 'quantum audit failed'),
    );
  /** A record of the source's own doing (an alarm, a recovery). */
  const sourceRecord = (entry: Omit<AuditEntry, 'who' | 'ip'>) =>
    recorded(audit.write(db, { who: SYSTEM_SUBJECT, ip: '', ...entry }));

  const load = async () => fromRow(await readQuantumSource(db));

  function view(): QuantumState {
    const { updated_at, ...rest } = settings;
    return {
      ...rest,
      status,
      failure,
      detail,
      node: nodeName,
      last_check: lastCheck,
      throughput,
      bytes_consumed: bytesConsumed,
      failures,
      rct_cutoff: rctCutoff(settings.min_entropy),
      apt_cutoff: aptCutoff(settings.min_entropy),
      updated_at,
    };
  }

  /** Reads `length` bytes with `reader` and runs `against` over them; the bytes are wiped unless kept. */
  async function readAndTest(
    source: SourceReader,
    against: HealthTests,
    length: number,
  ): Promise<Outcome & { block?: Buffer }> {
    const started = performance.now();
    let block: Buffer;
    try {
      block = await source.read(length);
    } catch (err) {
      const e = err instanceof SourceError ? err : new SourceError('unreachable', String(err));
      return { ok: false, failure: e.failure, detail: e.message, bytes: 0, ms: performance.now() - started };
    }
    const ms = performance.now() - started;
    const result = against.check(block);
    if (result) {
      block.fill(0);
      return { ok: false, failure: result.failure, detail: result.detail, bytes: length, ms };
    }
    return { ok: true, failure: null, detail: null, bytes: length, ms, block };
  }

  /** Turns the outcome of a check of the live source into the node's status, the pool and alarms. */
  async function apply(outcome: Outcome & { block?: Buffer }, startup: boolean) {
    lastCheck = clock().toISOString();
    if (outcome.ok && outcome.block) {
      absorbEntropy(outcome.block);
      outcome.block.fill(0);
      bytesConsumed += outcome.bytes;
      throughput = outcome.ms > 0 ? Math.round((outcome.bytes * 1000) / outcome.ms) : null;
      const recovered = status === 'invalid';
      status = 'normal';
      failure = null;
      detail = null;
      if (recovered && startup)
        await sourceRecord({
          action: 'quantum.recovered',
          target: settings.endpoint,
          result: 'success',
          details: { node: nodeName },
        });
      return;
    }
    failures++;
    dropEntropyPool();
    tests = null;
    const raised = status !== 'invalid';
    status = 'invalid';
    failure = outcome.failure;
    detail = outcome.detail;
    // The alarm: once per fall from normal (or from the first start), not on every retry.
    if (raised)
      await sourceRecord({
        action: 'quantum.invalid',
        target: settings.endpoint,
        result: 'failure',
        severity: 'ERROR',
        details: { node: nodeName, failure: outcome.failure, detail: outcome.detail },
      });
  }

  /** One check of the live source: continuous tests while normal, start-up tests otherwise. */
  function check(forceStartup = false): Promise<Outcome> {
    if (running) return running;
    running = (async () => {
      if (!settings.enabled || !reader) return { ok: false, failure: null, detail: null, bytes: 0, ms: 0 };
      const startup = forceStartup || status !== 'normal' || !tests;
      const against = startup ? new HealthTests(settings.min_entropy) : tests!;
      const outcome = await readAndTest(
        reader,
        against,
        startup ? Math.max(STARTUP_BYTES, settings.block_bytes) : settings.block_bytes,
      );
      if (outcome.ok) tests = against;
      await apply(outcome, startup);
      const { block, ...rest } = outcome;
      block?.fill(0);
      return rest;
    })().finally(() => {
      running = null;
    });
    return running;
  }

  /** Takes new settings as the live ones: a new reader, fresh tests, the pool dropped. */
  function adopt(next: typeof settings, keep?: { reader: SourceReader; tests: HealthTests }) {
    settings = next;
    reader = next.enabled ? (keep?.reader ?? readerFor(next)) : null;
    tests = keep?.tests ?? null;
    if (!keep) dropEntropyPool();
    if (!next.enabled) {
      status = 'disabled';
      failure = null;
      detail = null;
    } else if (!keep) {
      status = 'invalid';
      failure = 'startup';
      detail = 'Not checked yet on this node';
    }
  }

  function arm() {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), settings.interval_seconds * 1000);
    timer.unref();
  }

  /** The timer: picks up settings another node saved, then checks the source. */
  async function tick() {
    try {
      const stored = await load();
      if (stored.updated_at !== settings.updated_at) adopt(stored);
      if (settings.enabled) await check();
    } catch (err) {
      deps.log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'quantum check failed');
    } finally {
      arm();
    }
  }

  async function refuseEndpoint(spec: { source_type: QuantumSourceType; endpoint: string }) {
    const problem = await endpointProblem(spec);
    if (problem) throw invalid(problem.key as MessageKey, problem.values);
  }

  return {
    async start() {
      adopt(await load());
      if (settings.enabled) await check();
      arm();
    },

    status: () => view(),

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.quantum.update>) {
      const { updated_at: _previous, ...current } = settings;
      const next: QuantumSettings = { ...current, ...body };
      next.endpoint = next.endpoint.trim();
      let kept: { reader: SourceReader; tests: HealthTests } | undefined;
      if (next.enabled) {
        await refuseEndpoint(next);
        // Start-up tests on a reader of its own: a refused source changes nothing.
        const candidate = readerFor(next);
        const against = new HealthTests(next.min_entropy);
        const outcome = await readAndTest(candidate, against, Math.max(STARTUP_BYTES, next.block_bytes));
        if (!outcome.ok) {
          await recorded(
            audit.byCaller(db, actor, meta, {
              action: 'quantum.update',
              target: next.endpoint,
              result: 'failure',
              details: { source_type: next.source_type, failure: outcome.failure, detail: outcome.detail },
            }),
          );
          throw invalid('quantum.startupFailed', {
            failure: outcome.failure ?? 'startup',
            detail: outcome.detail ?? '',
          });
        }
        kept = { reader: candidate, tests: against };
        dropEntropyPool();
        await apply(outcome, true);
      }
      const updated_at = clock().toISOString();
      const row = {
        enabled: next.enabled ? 1 : 0,
        source_type: next.source_type,
        endpoint: next.endpoint,
        min_entropy: next.min_entropy,
        block_bytes: next.block_bytes,
        interval_seconds: next.interval_seconds,
        updated_at,
      };
      await db.transaction().execute(async (trx) => {
        await saveQuantumSource(trx, row);
        await audit.byCaller(trx, actor, meta, {
          action: 'quantum.update',
          target: next.endpoint,
          details: {
            enabled: next.enabled,
            source_type: next.source_type,
            min_entropy: next.min_entropy,
            block_bytes: next.block_bytes,
            interval_seconds: next.interval_seconds,
          },
        });
      });
      adopt({ ...next, updated_at }, kept);
      arm();
      return view();
    },

    /** The start-up tests now, on the live source (or, disabled, on its settings without using it). */
    async test(actor: Actor, meta: RequestMeta) {
      if (!settings.endpoint) throw stateForbids('quantum.notConfigured');
      let outcome: Outcome;
      if (settings.enabled) {
        // A test is a re-qualification: the start-up tests, whatever the status.
        outcome = await check(true);
      } else {
        await refuseEndpoint(settings);
        const { block, ...rest } = await readAndTest(
          readerFor(settings),
          new HealthTests(settings.min_entropy),
          Math.max(STARTUP_BYTES, settings.block_bytes),
        );
        block?.fill(0);
        outcome = rest;
      }
      await recorded(
        audit.byCaller(db, actor, meta, {
          action: 'quantum.test',
          target: settings.endpoint,
          result: outcome.ok ? 'success' : 'failure',
          details: { failure: outcome.failure, detail: outcome.detail, bytes: outcome.bytes },
        }),
      );
      return { ...outcome, ms: Math.round(outcome.ms * 10) / 10, state: view() };
    },

    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      dropEntropyPool();
    },
  };
}

export type QuantumService = ReturnType<typeof createQuantumService>;
