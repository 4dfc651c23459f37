import { randomUUID } from 'node:crypto';
import type { api, Input, PolicyElementDetail, PolicyElementKind, QueryInput } from '@ksp/contracts';
import { isUniqueViolation, type Executor } from '../../platform/db/database.js';
import type { TdePolicyElementTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { PolicyContext } from './tde-policy.context.js';
import {
  parse,
  requireSet,
  type ElementContent,
  type ProcessEntry,
  type ResourceEntry,
  type Signature,
  type UserEntry,
} from './tde-policy.model.js';
import {
  deleteElement,
  elementPage,
  findElementRow,
  insertElement,
  refsTo,
  updateElement,
} from './tde-policy.store.js';
import {
  allEntryArrays,
  arraysOfKind,
  checkAbsolutePath,
  checkFileName,
  checkGuardPointPath,
  checkHash,
} from './tde-policy.validate.js';

type ElementUser = PolicyElementDetail['used_by'][number];

/** What refers to each of `ids`: policies, sets and profiles, by name. */
async function usersOf(q: Executor, ids: string[]) {
  const out = new Map<string, ElementUser[]>();
  for (const r of await refsTo(q, ids)) {
    const list = out.get(r.element_id) ?? [];
    list.push({
      kind: r.from_kind as ElementUser['kind'],
      id: r.from_id,
      name: r.policy_name ?? r.element_name ?? r.profile_name ?? '',
    });
    out.set(r.element_id, list);
  }
  return out;
}

const elementTaken = (kind: string, name: string) => (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('tdePolicy.elementNameTaken', { kind, name }) : err;
};

/** Policy elements (resource, user, process and signature sets): list, detail, create, update, delete. */
export function createElementCalls(ctx: PolicyContext) {
  const { db, clock } = ctx;

  async function findElement(q: Executor, domainId: string, id: string) {
    const row = await findElementRow(q, domainId, id);
    if (!row) throw notFound('tdePolicy.elementNotFound', { id });
    return row;
  }

  /** The entries of `kind` checked and normalised, the others refused; answers what to store. */
  async function checkEntries(q: Executor, domainId: string, kind: PolicyElementKind, body: ElementContent) {
    for (const field of allEntryArrays)
      if (!arraysOfKind[kind].includes(field) && body[field].length)
        throw invalid('tdePolicy.entriesOfKind', { field, kind });
    const refs: string[] = [];
    let entries: unknown[] = [];
    let sourceList: string[] = [];
    if (kind === 'resource')
      entries = body.resources.map((e, i): ResourceEntry => ({
        directory: checkGuardPointPath(`resources[${i}].directory`, e.directory),
        file: checkFileName(`resources[${i}].file`, e.file),
        include_subfolders: e.include_subfolders,
      }));
    if (kind === 'user')
      entries = body.users.map((e, i): UserEntry => {
        const entry: UserEntry = {};
        if (e.uname !== undefined) entry.uname = e.uname;
        if (e.uid !== undefined) entry.uid = e.uid;
        if (e.gname !== undefined) entry.gname = e.gname;
        if (e.gid !== undefined) entry.gid = e.gid;
        if (!Object.keys(entry).length) throw invalid('tdePolicy.userEmpty', { field: `users[${i}]` });
        return entry;
      });
    if (kind === 'process') {
      const sets = await ctx.setsById(
        q,
        domainId,
        body.processes.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
      );
      entries = body.processes.map((e, i): ProcessEntry => {
        if (!e.directory && !e.file) throw invalid('tdePolicy.processEmpty', { field: `processes[${i}]` });
        if (e.signature_set_id) {
          requireSet(sets, `processes[${i}].signature_set_id`, 'signature', e.signature_set_id);
          refs.push(e.signature_set_id);
        }
        return {
          directory: e.directory ? checkAbsolutePath(`processes[${i}].directory`, e.directory) : '',
          file: checkFileName(`processes[${i}].file`, e.file),
          signature_set_id: e.signature_set_id,
        };
      });
    }
    if (kind === 'signature') {
      sourceList = body.source_list.map((p, i) => checkAbsolutePath(`source_list[${i}]`, p));
      entries = body.signatures.map((s, i): Signature => ({
        file_name: s.file_name,
        hash_value: checkHash(`signatures[${i}].hash_value`, s.hash_value),
      }));
    }
    return { entries, sourceList, refs };
  }

  async function elementView(q: Executor, row: TdePolicyElementTable): Promise<PolicyElementDetail> {
    const users = (await usersOf(q, [row.id])).get(row.id) ?? [];
    const entries = parse<unknown[]>(row.entries);
    let processes: PolicyElementDetail['processes'] = [];
    if (row.kind === 'process') {
      const list = entries as ProcessEntry[];
      const sets = await ctx.setsById(
        q,
        row.domain_id,
        list.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
      );
      processes = list.map((e) => ({
        ...e,
        signature_set_name: e.signature_set_id ? (sets.get(e.signature_set_id)?.name ?? null) : null,
      }));
    }
    return {
      id: row.id,
      kind: row.kind as PolicyElementKind,
      name: row.name,
      description: row.description,
      entry_count: entries.length,
      used_by: users,
      created_at: row.created_at,
      updated_at: row.updated_at,
      resources: row.kind === 'resource' ? (entries as ResourceEntry[]) : [],
      users: row.kind === 'user' ? (entries as UserEntry[]) : [],
      processes,
      source_list: parse<string[]>(row.source_list),
      signatures: row.kind === 'signature' ? (entries as Signature[]) : [],
    };
  }

  return {
    async elementList(actor: Actor, query: QueryInput<typeof api.tdePolicy.elementList>) {
      const { rows, total } = await elementPage(db, actor.domainId, query);
      const users = await usersOf(
        db,
        rows.map((r) => r.id),
      );
      return {
        data: rows.map((r) => ({
          id: r.id,
          kind: r.kind as PolicyElementKind,
          name: r.name,
          description: r.description,
          entry_count: parse<unknown[]>(r.entries).length,
          used_by: users.get(r.id) ?? [],
          created_at: r.created_at,
          updated_at: r.updated_at,
        })),
        total,
      };
    },

    async elementDetail(actor: Actor, id: string) {
      return elementView(db, await findElement(db, actor.domainId, id));
    },

    async elementCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.elementCreate>) {
      return ctx.change(actor, meta, 'policyElement.create', { id: null, name: body.name }, async () => {
        const checked = await checkEntries(db, actor.domainId, body.kind, body);
        const now = clock();
        const row: TdePolicyElementTable = {
          id: randomUUID(),
          domain_id: actor.domainId,
          kind: body.kind,
          name: body.name,
          description: body.description,
          entries: JSON.stringify(checked.entries),
          source_list: JSON.stringify(checked.sourceList),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        return ctx
          .saveReferrer(
            actor.domainId,
            { kind: 'element', id: row.id, refs: checked.refs },
            now,
            (trx) => insertElement(trx, row),
            async (trx) => {
              await ctx.recordChange(trx, actor, meta, 'policyElement.create', row, {
                kind: row.kind,
                entries: checked.entries.length,
              });
              return elementView(trx, row);
            },
          )
          .catch(elementTaken(body.kind, body.name));
      });
    },

    async elementUpdate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.elementUpdate>) {
      return ctx.change(actor, meta, 'policyElement.update', { id: body.id, name: body.name }, async () => {
        const old = await findElement(db, actor.domainId, body.id);
        const kind = old.kind as PolicyElementKind;
        const checked = await checkEntries(db, actor.domainId, kind, body);
        const now = clock();
        return ctx
          .saveReferrer(
            actor.domainId,
            { kind: 'element', id: old.id, refs: checked.refs },
            now,
            (trx) =>
              updateElement(trx, actor.domainId, old.id, {
                name: body.name,
                description: body.description,
                entries: JSON.stringify(checked.entries),
                source_list: JSON.stringify(checked.sourceList),
                updated_at: now.toISOString(),
              }),
            async (trx) => {
              await ctx.recordChange(
                trx,
                actor,
                meta,
                'policyElement.update',
                { id: old.id, name: body.name },
                {
                  kind,
                  entries: checked.entries.length,
                  ...(old.name !== body.name ? { renamed_from: old.name } : {}),
                },
              );
              return elementView(trx, await findElement(trx, actor.domainId, old.id));
            },
          )
          .catch(elementTaken(kind, body.name));
      });
    },

    async elementDelete(actor: Actor, meta: RequestMeta, id: string) {
      return ctx.change(actor, meta, 'policyElement.delete', { id, name: id }, async () => {
        const row = await findElement(db, actor.domainId, id);
        return ctx.deleteChecked(
          actor,
          meta,
          { action: 'policyElement.delete', target: row, details: { kind: row.kind } },
          async (trx) => {
            const users = (await usersOf(trx, [row.id])).get(row.id) ?? [];
            if (users.length)
              throw conflict('tdePolicy.elementInUse', {
                kind: row.kind,
                name: row.name,
                users: users.map((u) => `${u.kind} ${u.name}`).join(', '),
              });
          },
          (trx) => deleteElement(trx, row.id),
        );
      });
    },
  };
}
