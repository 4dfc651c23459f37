import { randomUUID } from 'node:crypto';
import type { api, AuthBinaryPrivilege, AuthBinaryRow, Input } from '@ksp/contracts';
import { bumpClientConfig } from '../../platform/agent-config.js';
import { invalid, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { normalizePath, type ClientContext } from './tde-client.context.js';
import { effectiveAuthBinaries, signatureSets, type SourcedAuthBinary } from './tde-client.effective.js';
import { authBinariesOf, replaceAuthBinaries } from './tde-client.store.js';

type AuthBinariesBody = Input<typeof api.tdeClient.authBinariesSet>;

/** Authorised binaries (CTE's privilege–filename pairs) of a client or a group: read and replace. */
export function createAuthBinaryCalls(ctx: ClientContext) {
  const { db, clock } = ctx;

  async function views(domainId: string, list: SourcedAuthBinary[]): Promise<AuthBinaryRow[]> {
    const sets = await signatureSets(
      db,
      domainId,
      list.map((x) => x.row.signature_set_id),
    );
    return list.map(({ row, origin }) => ({
      filename: row.filename,
      privilege: row.privilege as AuthBinaryPrivilege,
      signature_set_id: row.signature_set_id,
      signature_set_name: row.signature_set_id ? (sets.get(row.signature_set_id)?.name ?? null) : null,
      origin,
    }));
  }

  /** A group's own list, as its rows show it. */
  async function groupList(domainId: string, group: { id: string; name: string }) {
    const rows = await authBinariesOf(db, domainId, 'group_id', [group.id]);
    const origin: AuthBinaryRow['origin'] = { kind: 'group', id: group.id, name: group.name };
    return {
      data: await views(
        domainId,
        rows.map((row) => ({ row, origin })),
      ),
    };
  }

  return {
    async list(actor: Actor, query: { client_id?: string | undefined; group_id?: string | undefined }) {
      ctx.checkTarget(query);
      if (query.client_id) {
        const client = await ctx.findClient(actor, query.client_id, 'tde');
        return {
          data: await views(actor.domainId, await effectiveAuthBinaries(db, actor.domainId, client.id)),
        };
      }
      return groupList(actor.domainId, await ctx.findGroup(actor, query.group_id!));
    },

    /** Replaces the target's own list; the agents of the domain receive it with the next document. */
    async set(actor: Actor, meta: RequestMeta, body: AuthBinariesBody) {
      const action = 'tde-client.auth-binaries.set';
      await ctx.refusalRecorded(actor, meta, action, body.client_id ?? body.group_id ?? '', () =>
        Promise.resolve(ctx.checkTarget(body)),
      );
      const client = body.client_id
        ? await ctx.found(actor, meta, action, body.client_id, () =>
            ctx.findClient(actor, body.client_id!, 'tde'),
          )
        : undefined;
      const group = body.group_id
        ? await ctx.found(actor, meta, action, body.group_id, () => ctx.findGroup(actor, body.group_id!))
        : undefined;
      const targetName = client ? client.name : group!.name;
      return ctx.refusalRecorded(actor, meta, action, targetName, async () => {
        const entries = body.entries.map((e) => ({ ...e, filename: normalizePath(e.filename) }));
        const seen = new Set<string>();
        entries.forEach((e, index) => {
          if (seen.has(e.filename))
            throw invalid('tdeClient.authBinaryDuplicate', { index, filename: e.filename });
          seen.add(e.filename);
        });
        const sets = await signatureSets(
          db,
          actor.domainId,
          entries.map((e) => e.signature_set_id),
        );
        entries.forEach((e, index) => {
          if (e.signature_set_id && !sets.has(e.signature_set_id))
            throw notFound('tdeClient.signatureSetNotFound', { index, id: e.signature_set_id });
        });
        await db.transaction().execute(async (trx) => {
          const at = clock();
          await replaceAuthBinaries(
            trx,
            actor.domainId,
            client ? 'client_id' : 'group_id',
            client?.id ?? group!.id,
            entries.map((e, position) => ({
              id: randomUUID(),
              domain_id: actor.domainId,
              client_id: client?.id ?? null,
              group_id: group?.id ?? null,
              filename: e.filename,
              privilege: e.privilege,
              signature_set_id: e.signature_set_id,
              position,
              created_at: at.toISOString(),
            })),
          );
          await bumpClientConfig(trx, actor.domainId, at);
          await ctx.record(trx, actor, meta, action, targetName, client?.id ?? group!.id, {
            ...(client ? { client: client.name } : { group: group!.name }),
            entries: entries.length,
            filenames: entries
              .map((e) => `${e.privilege}:${e.filename}`)
              .join(', ')
              .slice(0, 2000),
          });
        });
        if (!client) return groupList(actor.domainId, group!);
        const rows = await authBinariesOf(db, actor.domainId, 'client_id', [client.id]);
        return {
          data: await views(
            actor.domainId,
            rows.map((row) => ({ row, origin: { kind: 'client' } })),
          ),
        };
      });
    },
  };
}
