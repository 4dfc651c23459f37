import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, DEFAULT_CERT_VALIDITY_DAYS, tokenUsages, type DataOf } from '@ksp/contracts';
import { accessKeys, createToken, deleteTokens, listTokens, renewToken, updateToken } from '../../api/access';
import { RowActions, StatusTag, useColumnKit } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { FormModal, type FormField } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useConfirm, useConfirmDelete } from '../../components/confirm-delete';
import { requiredRule } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { ExpiryInput, expiryRule, FOREVER, isForever } from './expiry-input';
import { SecretModal, type OnceSecret } from './secret-modal';
import { paths } from '../../config/paths';
import { enrolTypeOfUsage } from '../../components/enrol-command';

type TokenRow = DataOf<typeof api.registrationToken.list>['data'][number];
type Usage = (typeof tokenUsages)[number];

interface TokenValues {
  name: string;
  usage: Usage;
  expires_at: string;
  cert_validity_days: number;
  capacity: number;
}

const statusColors = { valid: 'green', expired: 'red', exhausted: 'orange' } as const;
const usageKeys = {
  cte: 'access:token.usages.cte',
  rdm: 'access:token.usages.rdm',
  kadp: 'access:token.usages.kadp',
  kmip: 'access:token.usages.kmip',
} as const;
const statusKeys = {
  valid: 'access:token.status.valid',
  expired: 'access:token.status.expired',
  exhausted: 'access:token.status.exhausted',
} as const;

/** Access management › registration tokens: how agents enrol; each secret is shown once. */
export default function TokenPage() {
  const t = useT();
  const kit = useColumnKit<TokenRow>();
  const { message } = App.useApp();
  const confirmDialog = useConfirm();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.registrationToken.create);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<TokenRow | null>(null);
  const [secret, setSecret] = useState<OnceSecret | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: accessKeys.tokens });
  const usageOptions = tokenUsages.map((usage) => ({ value: usage, label: t(usageKeys[usage]) }));

  const showSecret = (
    token: { name: string; secret: string; usage: TokenRow['usage'] },
    renewed: boolean,
  ) => {
    const enrolType = enrolTypeOfUsage[token.usage];
    setSecret({
      title: renewed
        ? t('access:token.renewedTitle', { name: token.name })
        : t('access:token.createdTitle', { name: token.name }),
      secret: token.secret,
      details: (
        <>
          <Typography.Text type="secondary">{t('access:token.secretUsage')}</Typography.Text>
          {enrolType && (
            // The secret travels in the fragment only: never sent to a server, nor as a referrer.
            <Typography.Link
              href={`${paths.remoteAdd}#${new URLSearchParams({ token: token.secret, type: enrolType }).toString()}`}
              target="_blank"
              rel="noopener noreferrer"
              data-testid="token-enrol-command"
            >
              {t('access:token.enrolCommand')}
            </Typography.Link>
          )}
        </>
      ),
    });
  };

  const renew = (row: TokenRow) =>
    confirmDialog({
      title: t('access:token.renewConfirm', { name: row.name }),
      content: t('access:token.renewText'),
      okText: t('access:token.renew'),
      onOk: async () => {
        try {
          showSecret(await renewToken(row.id), true);
        } catch {
          // Shown by the client.
        }
        await refresh();
      },
    });

  const confirmDelete = useConfirmDelete();
  const remove = (row: TokenRow) =>
    confirmDelete({
      title: t('access:token.deleteConfirm', { name: row.name }),
      remove: () => deleteTokens([row.id]),
      refresh,
    });

  const statusLabels = {
    valid: t(statusKeys.valid),
    expired: t(statusKeys.expired),
    exhausted: t(statusKeys.exhausted),
  };

  const unlimited = <Typography.Text type="secondary">{t('access:token.unlimited')}</Typography.Text>;

  const columns: ColumnsType<TokenRow> = [
    kit.name(t('access:token.fields.name'), 'name'),
    {
      title: t('access:token.fields.usage'),
      dataIndex: 'usage',
      render: (usage: Usage) => <Tag>{t(usageKeys[usage])}</Tag>,
    },
    {
      title: t('access:token.fields.expiry'),
      dataIndex: 'expires_at',
      render: (value: string) =>
        isForever(value) ? (
          <Tooltip title={t('access:token.foreverHint')}>
            <span data-testid="token-expiry">- ({t('access:token.forever')})</span>
          </Tooltip>
        ) : (
          <span data-testid="token-expiry">{formatDateTime(value)}</span>
        ),
    },
    {
      title: t('access:token.fields.validity'),
      dataIndex: 'cert_validity_days',
      align: 'right',
      render: (days: number) => t('access:token.days', { count: days }),
    },
    {
      title: t('access:token.fields.capacity'),
      dataIndex: 'capacity',
      align: 'right',
      render: (capacity: number) => (capacity === 0 ? unlimited : capacity),
    },
    { title: t('access:token.fields.used'), dataIndex: 'used', align: 'right' },
    {
      title: t('access:token.fields.remaining'),
      dataIndex: 'remaining',
      align: 'right',
      render: (remaining: number | null) => (remaining === null ? unlimited : remaining),
    },
    {
      title: t('access:token.fields.status'),
      dataIndex: 'status',
      render: (status: TokenRow['status']) => (
        <StatusTag value={status} colors={statusColors} labels={statusLabels} testId="token-status" />
      ),
    },
    kit.time(t('access:common.createdAt'), 'created_at'),
  ];

  if (canWrite) {
    columns.push(
      kit.actions((row) => (
        <RowActions
          items={[
            kit.edit(() => setEditing(row), `token-edit-${row.name}`),
            { label: t('access:token.renew'), onClick: () => renew(row), testId: `token-renew-${row.name}` },
            {
              // Without the secret (shown once, at creation): the operator pastes it there.
              label: t('access:token.enrolCommand'),
              onClick: () =>
                window.open(
                  `${paths.remoteAdd}#type=${enrolTypeOfUsage[row.usage] ?? ''}`,
                  '_blank',
                  'noopener,noreferrer',
                ),
              show: enrolTypeOfUsage[row.usage] !== undefined,
              testId: `token-enrol-${row.name}`,
            },
            kit.remove(() => remove(row), `token-delete-${row.name}`),
          ]}
        />
      )),
    );
  }

  const required = (label: string) => [requiredRule(label)];
  const fieldsFor = (stored?: TokenRow): FormField<TokenValues>[] => [
    {
      name: 'name',
      label: t('access:token.fields.name'),
      extra: t('access:common.nameHint'),
      testId: 'token-name',
    },
    {
      name: 'usage',
      label: t('access:token.fields.usage'),
      kind: 'select',
      options: usageOptions,
      testId: 'token-usage',
    },
    {
      name: 'expires_at',
      label: t('access:token.fields.expiry'),
      kind: 'custom',
      render: () => <ExpiryInput />,
      rules: [expiryRule(stored?.expires_at)],
    },
    {
      name: 'cert_validity_days',
      label: t('access:token.fields.validityDays'),
      kind: 'number',
      extra: t('access:token.validityHint', { days: DEFAULT_CERT_VALIDITY_DAYS }),
      rules: required(t('access:token.fields.validityDays')),
      testId: 'token-validity',
    },
    {
      name: 'capacity',
      label: t('access:token.fields.capacity'),
      kind: 'number',
      extra: t('access:token.capacityHint'),
      rules: required(t('access:token.fields.capacity')),
      testId: 'token-capacity',
    },
  ];

  return (
    <>
      <ListPage<TokenRow>
        queryKey={accessKeys.tokens}
        fetchPage={({ page, page_size, filters }) =>
          listTokens({
            page,
            page_size,
            name: filters.name,
            usage: tokenUsages.find((usage) => usage === filters.usage),
          })
        }
        rowKey="id"
        columns={columns}
        filters={[
          { name: 'name', label: t('access:token.fields.name') },
          { name: 'usage', label: t('access:token.fields.usage'), options: usageOptions },
        ]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="token-add" />}
        onDelete={canWrite ? (ids) => deleteTokens(ids) : undefined}
      />
      <FormModal<TokenValues>
        open={creating}
        title={t('access:token.createTitle')}
        schema={api.registrationToken.create.body}
        fields={fieldsFor()}
        initialValues={{
          usage: 'cte',
          expires_at: FOREVER,
          cert_validity_days: DEFAULT_CERT_VALIDITY_DAYS,
          capacity: 0,
        }}
        onSubmit={async (values) => {
          const created = await createToken({ ...values, name: values.name.trim() });
          await refresh();
          showSecret(created, false);
        }}
        onClose={() => setCreating(false)}
      />
      <FormModal<TokenValues>
        open={editing !== null}
        title={t('access:token.editTitle', { name: editing?.name ?? '' })}
        schema={api.registrationToken.create.body}
        fields={fieldsFor(editing ?? undefined)}
        initialValues={editing ?? undefined}
        onSubmit={async (values) => {
          if (!editing) return;
          // An unchanged expiry is left out: a past one would be refused.
          const { expires_at, ...rest } = values;
          await updateToken({
            id: editing.id,
            ...rest,
            name: values.name.trim(),
            ...(expires_at !== editing.expires_at ? { expires_at } : {}),
          });
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={() => setEditing(null)}
      />
      <SecretModal value={secret} onClose={() => setSecret(null)} />
    </>
  );
}
