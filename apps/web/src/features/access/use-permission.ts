import { useSignedIn } from '../../api/session';

/** Whether the signed-in user holds `permission` (the server checks it again on every call). */
export function useHasPermission(permission: string): boolean {
  return useSignedIn()?.userinfo.permissions.includes(permission) ?? false;
}
