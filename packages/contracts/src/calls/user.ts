import { z } from 'zod';
import { defineCall } from '../call.js';
import { DomainName, Email, Id, IdList, NewPassword } from '../common.js';
import { MenuItemSchema } from '../menu.js';

export const UserInfo = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  domain: z.string(),
  domains: z.array(z.string()),
  has_domains: z.boolean(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  directory: z.string().nullable(),
  must_change_password: z.boolean(),
  last_login_at: z.string().nullable(),
  /** Seconds; the console refreshes its token after `refresh_seconds`. */
  session: z.object({
    idle_seconds: z.number().int(),
    max_seconds: z.number().int(),
    refresh_seconds: z.number().int(),
  }),
});

export const SignedIn = z.object({
  token: z.string(),
  userinfo: UserInfo,
  menu: z.array(MenuItemSchema),
});

export const PasswordPolicyRules = z.object({
  min_length: z.number().int(),
  max_length: z.number().int(),
  min_lowercase: z.number().int(),
  min_uppercase: z.number().int(),
  min_digits: z.number().int(),
  min_special: z.number().int(),
});

export const userCalls = {
  login: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/login',
    summary:
      'Sign in. Local user: username = base64(utf8(name)), password = base64(sha256(utf8(password))). ' +
      'Directory user (connection/name): both as typed.',
    tag: 'user',
    access: 'public',
    body: z.object({ username: z.string().min(1).max(512), password: z.string().min(1).max(1024) }),
    data: SignedIn,
  }),
  info: defineCall({
    method: 'GET',
    path: '/v1/ksp/user/info',
    summary: 'The signed-in user and the menu',
    tag: 'user',
    access: 'session',
    data: z.object({ userinfo: UserInfo, menu: z.array(MenuItemSchema) }),
  }),
  logout: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/logout',
    summary: 'Revoke the current token',
    tag: 'user',
    access: 'session',
    body: z.object({}).optional(),
    data: z.null(),
  }),
  switchDomain: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/switch-domain',
    summary: 'Act in another of my domains: a new token bound to it',
    tag: 'user',
    access: 'session',
    body: z.object({ domain_name: DomainName }),
    data: SignedIn,
  }),
  updateEmail: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/update-email',
    summary: 'Change my email address',
    tag: 'user',
    access: 'session',
    body: z.object({ email: Email }),
    data: z.object({ email: z.string() }),
  }),
  updateMyPassword: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/update-my-password',
    summary: 'Change my password (both sent as typed); other sessions are revoked',
    tag: 'user',
    access: 'session',
    body: z.object({ old_password: z.string().min(1).max(128), new_password: NewPassword }),
    data: z.object({ token: z.string() }),
  }),
  passwordRules: defineCall({
    method: 'GET',
    path: '/v1/ksp/user/password-rules',
    summary: 'The password policy rules a new password must meet',
    tag: 'user',
    access: 'public',
    beforeInit: true,
    data: PasswordPolicyRules,
  }),
  domainAddUser: defineCall({
    method: 'POST',
    path: '/v1/ksp/user/domain/add-user',
    summary: 'Make users members of a domain',
    tag: 'user',
    access: 'domain:write',
    body: z.object({ domain_id: Id, user_ids: IdList }),
    data: z.object({ added: z.number().int() }),
  }),
};

export const tokenCalls = {
  refresh: defineCall({
    method: 'POST',
    path: '/v1/ksp/token/refresh',
    summary: 'Issue a new token and revoke the current one',
    tag: 'user',
    access: 'session',
    body: z.object({}).optional(),
    data: z.string(),
  }),
};
