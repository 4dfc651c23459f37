import { revocationReasons } from '@ksp/contracts';

/** The key state machine and the permission of each action are the contract's (shared with the server). */
export {
  availableKeyActions as availableActions,
  isCompromiseReason,
  isPairedPublic,
  keyActionAllowed as actionAllowed,
  type KeyAction,
} from '@ksp/contracts';

export function isRevocationReason(value: string | null): value is (typeof revocationReasons)[number] {
  return (revocationReasons as readonly (string | null)[]).includes(value);
}

/** The audit actions of keys the console names ('key.add-version' → 'add-version'). */
export const AUDIT_ACTIONS = [
  'create',
  'import',
  'update',
  'activate',
  'disable',
  'recover',
  'add-version',
  'clone',
  'export',
  'destroy',
  'delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function auditActionOf(action: string): AuditAction | null {
  const name = action.startsWith('key.') ? action.slice(4) : '';
  return (AUDIT_ACTIONS as readonly string[]).includes(name) ? (name as AuditAction) : null;
}
