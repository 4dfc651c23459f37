import { z } from 'zod';
import { isIpRule } from '../ip.js';

export const IpRule = z
  .string()
  .trim()
  .max(64)
  .refine(isIpRule, { message: 'must be an IPv4/IPv6 address or CIDR range', params: { rule: 'ip' } });
export const IpWhitelist = z.array(IpRule).max(100);

export const Phone = z
  .string()
  .trim()
  .max(32)
  .regex(/^(\+?[0-9][0-9 ()-]{3,30})?$/);

export const NamedRef = z.object({ id: z.string(), name: z.string() });
