import { useMemo } from 'react';
import type { Access, Permission } from '@ksp/contracts';
import { useSignedIn } from '../api/session';

/**
 * The permissions of the signed-in user. The console only hides what a user may not
 * do; the server checks every call again.
 */
export function usePermissions(): ReadonlySet<string> {
  const signedIn = useSignedIn();
  return useMemo(() => new Set<string>(signedIn?.userinfo.permissions ?? []), [signedIn]);
}

/** Whether the signed-in user holds `permission`. */
export function useHasPermission(permission: Permission): boolean {
  return usePermissions().has(permission);
}

/** Whether a call of this access may be made: public always, session when signed in, else the permission. */
export function canAccess(access: Access, signedIn: boolean, permissions: ReadonlySet<string>): boolean {
  if (access === 'public') return true;
  if (access === 'session') return signedIn;
  return signedIn && permissions.has(access);
}

/** Whether the signed-in user may make `call` (e.g. `useCanCall(api.key.export)`), from its contract access. */
export function useCanCall(call: { access: Access }): boolean {
  const signedIn = useSignedIn() !== null;
  return canAccess(call.access, signedIn, usePermissions());
}
