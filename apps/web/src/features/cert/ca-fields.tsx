import { Select } from 'antd';
import type { api } from '@ksp/contracts';
import { caAlgorithms, type BodyOf } from '@ksp/contracts';
import { type LocalCaRow } from '../../api/cert';
import { type FormField } from '../../components/form-modal';
import { requiredRule } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';

/** The values of a CA's create dialog. */
export type CreateValues = BodyOf<typeof api.cert.caCreate>;
/** The values of a sign dialog. */
export interface SignValues {
  parent_id?: string;
  validity_days: number;
  path_len?: number | null;
}
/** The values of an install dialog. */
export interface InstallValues {
  certificate: string;
}
/** The values of a rename dialog. */
export interface RenameValues {
  name: string;
}

/** The dialog open over the CA list, and on which CA. */
export type Dialog =
  | { kind: 'create' }
  | { kind: 'self-sign' | 'sign' | 'install' | 'rename' | 'detail'; ca: LocalCaRow }
  | null;

/** The fields of the CA dialogs: the subject of a new CA, and the parent and validity of a signature. */
export function useCaFields(rows: LocalCaRow[], dialog: Dialog) {
  const t = useT();
  const required = (label: string) => [requiredRule(label)];
  const nameFields: FormField<CreateValues>[] = [
    { name: 'name', label: t('cert:fields.name'), testId: 'ca-name' },
    { name: 'cn', label: t('cert:fields.cn'), testId: 'ca-cn' },
    { name: 'o', label: t('cert:fields.o'), testId: 'ca-o' },
    { name: 'ou', label: t('cert:fields.ou'), testId: 'ca-ou' },
    { name: 'c', label: t('cert:fields.c'), testId: 'ca-c', placeholder: 'CN' },
    { name: 'st', label: t('cert:fields.st'), testId: 'ca-st' },
    { name: 'l', label: t('cert:fields.l'), testId: 'ca-l' },
    {
      name: 'dns_names',
      label: t('cert:fields.dnsNames'),
      extra: t('cert:common.commaHint'),
      testId: 'ca-dns',
    },
    {
      name: 'ip_addresses',
      label: t('cert:fields.ipAddresses'),
      extra: t('cert:common.commaHint'),
      testId: 'ca-ips',
    },
    {
      name: 'emails',
      label: t('cert:fields.emails'),
      extra: t('cert:common.commaHint'),
      testId: 'ca-emails',
    },
    {
      name: 'algorithm',
      label: t('cert:fields.algorithm'),
      kind: 'select',
      options: caAlgorithms.map((value) => ({ value, label: value })),
      testId: 'ca-algorithm',
    },
  ];

  const parents = rows.filter(
    (ca) => ca.state === 'active' && ca.id !== (dialog && 'ca' in dialog ? dialog.ca.id : ''),
  );
  const signFields = (withParent: boolean): FormField<SignValues>[] => [
    ...(withParent
      ? [
          {
            name: 'parent_id',
            label: t('cert:ca.parent'),
            kind: 'custom',
            rules: required(t('cert:ca.parent')),
            render: () => (
              <Select
                options={parents.map((ca) => ({ value: ca.id, label: `${ca.name} (${ca.cn})` }))}
                data-testid="ca-parent"
              />
            ),
          } satisfies FormField<SignValues>,
        ]
      : []),
    {
      name: 'validity_days',
      label: t('cert:fields.validityDays'),
      kind: 'number',
      rules: required(t('cert:fields.validityDays')),
      testId: 'ca-validity',
    },
    {
      name: 'path_len',
      label: t('cert:fields.pathLen'),
      kind: 'number',
      extra: t('cert:ca.pathLenHint'),
      testId: 'ca-path-len',
    },
  ];

  return { nameFields, signFields, required };
}
