import { z } from 'zod';
import { defineCall } from '../call.js';

const count = z.number().int().min(0).max(128);

export const PasswordPolicy = z.object({
  min_length: z.number().int().min(1).max(128),
  max_length: z.number().int().min(1).max(128),
  min_lowercase: count,
  min_uppercase: count,
  min_digits: count,
  min_special: count,
  lockout_disabled: z.boolean(),
  max_failed_attempts: z.number().int().min(1).max(100),
  /** 0 = never expires. */
  expiry_days: z.number().int().min(0).max(3650),
  /** 0 = no limit. */
  min_change_days: z.number().int().min(0).max(365),
});

export const passwordPolicyCalls = {
  get: defineCall({
    method: 'GET',
    path: '/v1/ksp/password-policy/get',
    summary: 'The password policy',
    tag: 'password-policy',
    access: 'password-policy:read',
    scope: 'system',
    data: PasswordPolicy.extend({ updated_at: z.string() }),
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/password-policy/update',
    summary: 'Change the password policy (minima must fit within the maximum length)',
    tag: 'password-policy',
    access: 'password-policy:write',
    scope: 'system',
    body: PasswordPolicy,
    data: PasswordPolicy.extend({ updated_at: z.string() }),
  }),
};
