import { readFileSync } from 'node:fs';
import { api } from '@ksp/contracts';
import { registerCall } from '../../platform/http/route.js';
import type { KspModule, ModuleContext } from '../../platform/module.js';
import { registerKeyEndpoint } from './tde-database.endpoint.js';
import { createTdeDatabaseService } from './tde-database.service.js';
import { addReads } from './tde-database.store.js';
import { createReadTally, type ReadTally } from './tde-database.tally.js';

/** What each running server holds (tests run several servers in one process). */
const running = new WeakMap<object, { tally: ReadTally; timer: NodeJS.Timeout | null }>();

/** Writes the windows that have ended (all with `all`): their records, and the reads they add. */
async function flush(ctx: ModuleContext, tally: ReadTally, all = false): Promise<void> {
  const { records, grants, keyUses, clients } = tally.take(all);
  if (!records.length) return;
  try {
    await ctx.journal.write({ audit: records }, 'disk');
    if (grants.length) await addReads(ctx.db, grants, clients);
    if (keyUses.size) await ctx.use('keyVault').countUses(keyUses);
  } catch (err) {
    ctx.log.warn({ err }, 'tde-database: the database key reads could not be recorded');
  }
}

/**
 * TDE database clients (docs/tde-database.md): the console's calls, and the key endpoint
 * databases read their data-at-rest keys from (Vault KV version 2 shaped, on KSP's port).
 */
export const tdeDatabaseModule: KspModule = {
  name: 'tde-database',
  register(ctx) {
    const { app, gate, config } = ctx;
    const keyVault = () => ctx.use('keyVault');
    let certificatePem: string | null = null;
    const service = createTdeDatabaseService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      keyVault,
      tls: config.tls
        ? { certificatePem: () => (certificatePem ??= readFileSync(config.tls!.cert, 'utf8')) }
        : null,
    });
    const tally = createReadTally(config.dbKeyAuditSeconds * 1000, ctx.clock);
    running.set(app, { tally, timer: null });
    registerKeyEndpoint({ app, db: ctx.db, gate, keyVault, tally });

    registerCall(app, gate, api.tdeDatabase.endpoint, () => Promise.resolve(service.endpoint()));
    registerCall(app, gate, api.tdeDatabase.list, ({ actor, query }) => service.list(actor, query));
    registerCall(app, gate, api.tdeDatabase.detail, ({ actor, query }) => service.detail(actor, query.id));
    registerCall(app, gate, api.tdeDatabase.create, ({ actor, meta, body }) =>
      service.create(actor, meta, body),
    );
    registerCall(app, gate, api.tdeDatabase.update, ({ actor, meta, body }) =>
      service.update(actor, meta, body),
    );
    registerCall(app, gate, api.tdeDatabase.regenerateToken, ({ actor, meta, body }) =>
      service.regenerateToken(actor, meta, body.id),
    );
    registerCall(app, gate, api.tdeDatabase.revokeToken, ({ actor, meta, body }) =>
      service.revokeToken(actor, meta, body.id),
    );
    registerCall(app, gate, api.tdeDatabase.grant, ({ actor, meta, body }) =>
      service.grant(actor, meta, body),
    );
    registerCall(app, gate, api.tdeDatabase.ungrant, ({ actor, meta, body }) =>
      service.ungrant(actor, meta, body),
    );
    registerCall(app, gate, api.tdeDatabase.delete, ({ actor, meta, body }) =>
      service.remove(actor, meta, body.id),
    );
    registerCall(app, gate, api.tdeDatabase.keyOptions, ({ actor, query }) =>
      service.keyOptions(actor, query.name),
    );
    registerCall(app, gate, api.tdeDatabase.keyReaders, ({ actor, query }) =>
      service.keyReaders(actor, query.key_id),
    );
  },

  start(ctx) {
    const state = running.get(ctx.app);
    if (!state) return Promise.resolve();
    // Windows are looked at a few times per window, so a record is written soon after its window ends.
    const every = Math.max(250, Math.min(5000, (ctx.config.dbKeyAuditSeconds * 1000) / 4));
    state.timer = setInterval(() => void flush(ctx, state.tally), every);
    state.timer.unref();
    return Promise.resolve();
  },

  async stop(ctx) {
    const state = running.get(ctx.app);
    if (!state) return;
    if (state.timer) clearInterval(state.timer);
    await flush(ctx, state.tally, true);
    running.delete(ctx.app);
  },
};
