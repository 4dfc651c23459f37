import { randomUUID } from 'node:crypto';
import {
  DEFAULT_PROFILE,
  ProfileSettings,
  type api,
  type Input,
  type ProfileRow,
  type QueryInput,
} from '@ksp/contracts';
import { isUniqueViolation, type Executor } from '../../platform/db/database.js';
import type { TdeProfileTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { PolicyContext } from './tde-policy.context.js';
import { requireSet, storedSettings, type Settings } from './tde-policy.model.js';
import { checkQos, checkSyslog } from './tde-policy.profile-checks.js';
import type { ProfileSecrets } from './tde-policy.profile-secrets.js';
import {
  deleteProfile,
  findProfileRow,
  insertProfile,
  insertProfileIfAbsent,
  profilePage,
  updateProfile,
} from './tde-policy.store.js';

/** The domain's default profile, made with the default settings when first needed. */
export async function ensureDefaultProfile(q: Executor, domainId: string, at: Date): Promise<void> {
  await insertProfileIfAbsent(q, {
    id: randomUUID(),
    domain_id: domainId,
    name: DEFAULT_PROFILE,
    description: '',
    settings: JSON.stringify(ProfileSettings.parse({})),
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
  });
}

/** The process set a profile's settings refer to (its RDM trusted processes), if any. */
const profileRefs = (settings: { rwp_process_set_id: string | null }) =>
  settings.rwp_process_set_id ? [settings.rwp_process_set_id] : [];

/** Client profiles (TDE only, addressed by name): list, detail, create, update, delete. */
export function createProfileCalls(ctx: PolicyContext, secrets: ProfileSecrets) {
  const { db, clock } = ctx;
  const ensureDefault = (q: Executor, domainId: string) => ensureDefaultProfile(q, domainId, clock());

  async function findProfile(q: Executor, domainId: string, name: string) {
    if (name === DEFAULT_PROFILE) await ensureDefault(q, domainId);
    const row = await findProfileRow(q, domainId, name);
    if (!row) throw notFound('tdePolicy.profileNotFound', { name });
    return row;
  }

  async function checkProfile(q: Executor, domainId: string, settings: Settings, keys: (string | null)[]) {
    const u = settings.upload_settings;
    if (u.max_interval_s < u.min_interval_s)
      throw invalid('tdePolicy.profileIntervals', { min: u.min_interval_s });
    if (settings.rwp_process_set_id) {
      const sets = await ctx.setsById(q, domainId, [settings.rwp_process_set_id]);
      requireSet(sets, 'rwp_process_set_id', 'process', settings.rwp_process_set_id);
    }
    checkSyslog(settings, keys);
    checkQos(settings);
  }

  async function profileView(q: Executor, r: TdeProfileTable): Promise<ProfileRow> {
    const stored = storedSettings(r);
    const settings = {
      ...stored,
      syslog_settings: {
        ...stored.syslog_settings,
        servers: stored.syslog_settings.servers.map(({ sealed_privatekey, ...server }) => ({
          ...server,
          has_private_key: sealed_privatekey !== null,
        })),
      },
    };
    const set = settings.rwp_process_set_id
      ? (await ctx.setsById(q, r.domain_id, [settings.rwp_process_set_id])).get(settings.rwp_process_set_id)
      : undefined;
    return {
      ...settings,
      id: r.id,
      name: r.name,
      description: r.description,
      is_default: r.name === DEFAULT_PROFILE,
      rwp_process_set_name: set?.name ?? null,
      users: await ctx.profileUsers(q, r.domain_id, r.name),
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  return {
    async profileList(actor: Actor, query: QueryInput<typeof api.tdePolicy.profileList>) {
      await ensureDefault(db, actor.domainId);
      const { rows, total } = await profilePage(db, actor.domainId, query);
      const data: ProfileRow[] = [];
      for (const r of rows) data.push(await profileView(db, r));
      return { data, total };
    },

    async profileDetail(actor: Actor, name: string) {
      return profileView(db, await findProfile(db, actor.domainId, name));
    },

    async profileCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.profileCreate>) {
      return ctx.change(actor, meta, 'profile.create', { id: null, name: body.name }, async () => {
        await ensureDefault(db, actor.domainId);
        const keys = await secrets.resolveKeys(body, actor.domainId);
        await checkProfile(db, actor.domainId, body, keys);
        const id = randomUUID();
        const settings = await secrets.storedOf(body, keys, actor.domainId, id);
        const now = clock();
        const row: TdeProfileTable = {
          id,
          domain_id: actor.domainId,
          name: body.name,
          description: body.description,
          settings: JSON.stringify(settings),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        return ctx
          .saveReferrer(
            actor.domainId,
            { kind: 'profile', id: row.id, refs: profileRefs(settings) },
            now,
            (trx) => insertProfile(trx, row),
            async (trx) => {
              await ctx.recordChange(trx, actor, meta, 'profile.create', row);
              return profileView(trx, row);
            },
          )
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? conflict('tdePolicy.profileNameTaken', { name: body.name }) : err;
          });
      });
    },

    async profileUpdate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.profileUpdate>) {
      return ctx.change(actor, meta, 'profile.update', { id: null, name: body.name }, async () => {
        const old = await findProfile(db, actor.domainId, body.name);
        const keys = await secrets.resolveKeys(body, actor.domainId, {
          id: old.id,
          settings: storedSettings(old),
        });
        await checkProfile(db, actor.domainId, body, keys);
        const settings = await secrets.storedOf(body, keys, actor.domainId, old.id);
        const now = clock();
        return ctx.saveReferrer(
          actor.domainId,
          { kind: 'profile', id: old.id, refs: profileRefs(settings) },
          now,
          (trx) =>
            updateProfile(trx, old.id, {
              description: body.description,
              settings: JSON.stringify(settings),
              updated_at: now.toISOString(),
            }),
          async (trx) => {
            await ctx.recordChange(trx, actor, meta, 'profile.update', old);
            return profileView(trx, await findProfile(trx, actor.domainId, old.name));
          },
        );
      });
    },

    async profileDelete(actor: Actor, meta: RequestMeta, name: string) {
      return ctx.change(actor, meta, 'profile.delete', { id: null, name }, async () => {
        if (name === DEFAULT_PROFILE) throw stateForbids('tdePolicy.profileDefault', { name });
        const row = await findProfile(db, actor.domainId, name);
        return ctx.deleteChecked(
          actor,
          meta,
          { action: 'profile.delete', target: row },
          async (trx) => {
            const count = await ctx.profileUsers(trx, actor.domainId, row.name);
            if (count > 0) throw conflict('tdePolicy.profileInUse', { name: row.name, count });
          },
          (trx) => deleteProfile(trx, row.id),
        );
      });
    },
  };
}
