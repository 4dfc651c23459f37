import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

/** Query keys of access management; invalidating an area's `all` refreshes its lists. */
export const accessKeys = {
  users: ['access', 'users'] as const,
  roles: ['access', 'roles'] as const,
  roleOptions: ['access', 'roles', 'options'] as const,
  permissionTree: ['access', 'permission-tree'] as const,
  tokens: ['access', 'tokens'] as const,
  ldap: ['access', 'ldap'] as const,
  userDetail: (id: string) => ['access', 'users', 'detail', id] as const,
};

// Users

export function listUsers(query: QueryOf<typeof api.user.list>) {
  return call(api.user.list, { query });
}

export function createUser(body: BodyOf<typeof api.user.create>) {
  return call(api.user.create, { body });
}

export function updateUser(body: BodyOf<typeof api.user.update>) {
  return call(api.user.update, { body });
}

export function deleteUsers(ids: string[]) {
  return call(api.user.delete, { body: { ids } });
}

export function userDetail(id: string, silent = false) {
  return call(api.user.detailGroups, { body: { id } }, { silent });
}

export function updateUserEmail(id: string, email: string) {
  return call(api.user.updateEmail, { body: { id, email } });
}

export function resetUserPassword(id: string, password: string) {
  return call(api.user.updatePassword, { body: { id, password } });
}

export function setPasswordChangeRequired(id: string, value: boolean) {
  return call(api.user.updatePasswordNextLogin, { body: { id, value } });
}

export function unlockUser(id: string) {
  return call(api.user.unlock, { body: { id } });
}

export function updateUserIp(id: string, ipWhitelist: string[]) {
  return call(api.user.updateIp, { body: { id, ip_whitelist: ipWhitelist } });
}

/** A new app secret; its application tokens carry `roleId` (one of the user's roles) or all the user's roles. */
export function regenerateSecret(id: string, roleId?: string) {
  return call(api.user.updateSecret, { body: { id, ...(roleId ? { role_id: roleId } : {}) } });
}

export function sendSdkUser(id: string) {
  return call(api.user.sendSdkUser, { body: { id } });
}

export function unbindUserUkey(id: string) {
  return call(api.user.unbindUkey, { body: { id } });
}

export function addUsersToDomain(domainId: string, userIds: string[]) {
  return call(api.user.domainAddUser, { body: { domain_id: domainId, user_ids: userIds } });
}

export function removeUsersFromDomain(domainId: string, userIds: string[]) {
  return call(api.user.domainDeleteUser, { body: { domain_id: domainId, user_ids: userIds } });
}

// Roles

export function listRoles(query: QueryOf<typeof api.role.list>) {
  return call(api.role.list, { query });
}

/** Every role (for the selects of the user and LDAP forms). */
export async function allRoles() {
  return (await call(api.role.list, { query: { page: 1, page_size: 1000 } })).data;
}

export function fetchPermissionTree() {
  return call(api.role.permissionTree);
}

export function createRole(body: BodyOf<typeof api.role.create>) {
  return call(api.role.create, { body });
}

export function updateRole(body: BodyOf<typeof api.role.update>) {
  return call(api.role.update, { body });
}

export function deleteRoles(ids: string[]) {
  return call(api.role.delete, { body: { ids } });
}

export function assignRole(id: string, userIds: string[]) {
  return call(api.role.assign, { body: { id, user_ids: userIds } });
}

export function unassignRole(id: string, userIds: string[]) {
  return call(api.role.unassign, { body: { id, user_ids: userIds } });
}

// Registration tokens

export function listTokens(query: QueryOf<typeof api.registrationToken.list>) {
  return call(api.registrationToken.list, { query });
}

export function createToken(body: BodyOf<typeof api.registrationToken.create>) {
  return call(api.registrationToken.create, { body });
}

export function updateToken(body: BodyOf<typeof api.registrationToken.update>) {
  return call(api.registrationToken.update, { body });
}

export function renewToken(id: string) {
  return call(api.registrationToken.renew, { body: { id } });
}

export function deleteTokens(ids: string[]) {
  return call(api.registrationToken.delete, { body: { ids } });
}

// LDAP connections

export function listLdap(query: QueryOf<typeof api.ldap.list>) {
  return call(api.ldap.list, { query });
}

export function createLdap(body: BodyOf<typeof api.ldap.create>) {
  return call(api.ldap.create, { body });
}

export function updateLdap(body: BodyOf<typeof api.ldap.update>) {
  return call(api.ldap.update, { body });
}

export function deleteLdap(ids: string[]) {
  return call(api.ldap.delete, { body: { ids } });
}

export function testLdap(body: BodyOf<typeof api.ldap.test>) {
  return call(api.ldap.test, { body });
}
