import { z } from 'zod';
import { objectName } from './rules/text.js';

/** Shared primitives: every input has bounds (docs/style.md#errors-and-codes). */
export const Id = z.uuid();
export const IdList = z.array(Id).min(1).max(1000);
export const IdsBody = z.object({ ids: IdList });

export const Page = z.coerce.number().int().min(1).default(1);
export const PageSize = z.coerce.number().int().min(1).max(1000).default(20);
export const PageQuery = z.object({ page: Page, page_size: PageSize });

export const Timestamp = z.string();

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), total: z.number().int() });
}

export const Email = z.email().max(254);
export const Username = z.string().trim().min(1).max(64);
/** Passwords travel as typed (over TLS) when they are set, so the server can apply the policy. */
export const NewPassword = z.string().min(1).max(128);
export const DomainName = objectName(64);

export const Nothing = z.null();

export const EnvelopeSchema = z.object({ code: z.number(), msg: z.string(), data: z.unknown() });
export type Envelope<T> = { code: number; msg: string; data: T };
