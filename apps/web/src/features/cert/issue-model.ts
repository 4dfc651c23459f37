import {
  DEFAULT_LEAF_VALIDITY_DAYS,
  certUsages,
  signOnlyAlgorithms,
  type CaAlgorithm,
  type CertPurpose,
  type CertUsage,
} from '@ksp/contracts';
import type { IssueBody } from '../../api/cert';

/** The values of the issue form: the body of `cert.issue` plus the choice of key pair. */
export interface IssueValues {
  name: string;
  ca_id: string;
  source: 'csr' | 'generated';
  csr?: string;
  key_algorithm?: CaAlgorithm;
  exportable?: boolean;
  cn?: string;
  o?: string;
  ou?: string;
  c?: string;
  st?: string;
  l?: string;
  dns_names?: string;
  ip_addresses?: string;
  emails?: string;
  purpose: CertPurpose;
  usage: CertUsage;
  validity_days: number;
  path_len?: number | null;
}

export const issueDefaults: Partial<IssueValues> = {
  source: 'csr',
  key_algorithm: 'EC-P256',
  exportable: false,
  purpose: 'server',
  usage: 'signature',
  validity_days: DEFAULT_LEAF_VALIDITY_DAYS,
};

/** Whether keys of the algorithm can only sign (Ed25519, ML-DSA): their certificates sign only. */
export function signsOnly(algorithm: CaAlgorithm | undefined): boolean {
  return algorithm !== undefined && signOnlyAlgorithms.includes(algorithm);
}

/** The usages a certificate may have: only signature for a generated sign-only key. */
export function usageChoices(values: Pick<IssueValues, 'source' | 'key_algorithm'>): readonly CertUsage[] {
  return values.source === 'generated' && signsOnly(values.key_algorithm) ? ['signature'] : certUsages;
}

/** What the form shows for the current choices. */
export function issueFormShape(values: Pick<IssueValues, 'source' | 'key_algorithm' | 'purpose'>) {
  return {
    csr: values.source === 'csr',
    keyAlgorithm: values.source === 'generated',
    exportable: values.source === 'generated',
    pathLen: values.purpose === 'intermediate',
    usages: usageChoices(values),
    /** Without a CSR the common name is required (the key pair has no subject of its own). */
    cnRequired: values.source === 'generated',
  };
}

const optional = (value: string | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** The body of `cert.issue` for the form's values: fields of the other choices left out. */
export function issueBody(values: IssueValues): IssueBody {
  const shape = issueFormShape(values);
  const usage = shape.usages.includes(values.usage) ? values.usage : 'signature';
  const body: IssueBody = {
    name: values.name.trim(),
    ca_id: values.ca_id,
    purpose: values.purpose,
    usage,
    validity_days: values.validity_days,
    exportable: shape.exportable ? Boolean(values.exportable) : false,
  };
  if (shape.csr) body.csr = values.csr?.trim() ?? '';
  else body.key_algorithm = values.key_algorithm ?? 'EC-P256';
  if (shape.pathLen && typeof values.path_len === 'number') body.path_len = values.path_len;
  for (const field of ['cn', 'o', 'ou', 'c', 'st', 'l', 'dns_names', 'ip_addresses', 'emails'] as const) {
    const value = optional(values[field]);
    if (value !== undefined) body[field] = value;
  }
  return body;
}
