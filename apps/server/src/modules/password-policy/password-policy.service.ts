import type { api, Input } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { PasswordPolicyTable } from '../../platform/db/schema.js';
import { invalid } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { currentPolicy, updatePolicy } from './password-policy.store.js';

function view(row: PasswordPolicyTable) {
  return {
    min_length: row.min_length,
    max_length: row.max_length,
    min_lowercase: row.min_lowercase,
    min_uppercase: row.min_uppercase,
    min_digits: row.min_digits,
    min_special: row.min_special,
    lockout_disabled: row.lockout_disabled === 1,
    max_failed_attempts: row.max_failed_attempts,
    expiry_days: row.expiry_days,
    min_change_days: row.min_change_days,
    updated_at: row.updated_at,
  };
}

export function createPasswordPolicyService(deps: { db: Db; clock: Clock; audit: AuditWriter }) {
  const { db, clock, audit } = deps;
  return {
    get: async () => view(await currentPolicy(db)),

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.passwordPolicy.update>) {
      if (body.min_length > body.max_length)
        throw invalid('policy.minAboveMax', { min: body.min_length, max: body.max_length });
      const sum = body.min_lowercase + body.min_uppercase + body.min_digits + body.min_special;
      if (sum > body.max_length) throw invalid('policy.minimaTooLong', { sum, max: body.max_length });
      const updated_at = clock().toISOString();
      await db.transaction().execute(async (trx) => {
        await updatePolicy(trx, { ...body, lockout_disabled: body.lockout_disabled ? 1 : 0, updated_at });
        await audit.byCaller(trx, actor, meta, {
          action: 'password-policy.update',
          target: 'password policy',
        });
      });
      return view(await currentPolicy(db));
    },
  };
}

export type PasswordPolicyService = ReturnType<typeof createPasswordPolicyService>;
