import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Flex, Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, authBinaryPrivileges, type AuthBinaryPrivilege, type AuthBinaryRow } from '@ksp/contracts';
import { authBinaryKeys, listAuthBinaries, setAuthBinaries } from '../../api/tde-client';
import { listElements, tdePolicyKeys } from '../../api/tde-policy';
import { RowActions } from '../../components/columns';
import { FormModal } from '../../components/form-modal';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';

interface BinaryValues {
  filename: string;
  privilege: AuthBinaryPrivilege;
  signature_set_id: string;
}

/** A row of the table: an entry of the draft (own, editable) or an inherited one (read-only). */
type Row = AuthBinaryRow & { key: string; index: number | null };

/**
 * The authorised binaries of a TDE client (its own, editable, and its groups', read-only) or
 * of a client group (docs/modules.md#tde-and-rdm-clients): privilege–filename pairs, edited in a draft and
 * saved as a whole (`tde/auth-binary/set`).
 */
export function AuthBinaryTable({
  target,
  groupName = '',
}: {
  target: { client_id: string } | { group_id: string };
  /** On a group's page: its name (the origin of the entries added). */
  groupName?: string;
}) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.tdeClient.authBinariesSet);
  const targetId = 'client_id' in target ? target.client_id : target.group_id;
  const listed = useQuery({ queryKey: authBinaryKeys.of(targetId), queryFn: () => listAuthBinaries(target) });
  const isOwn = (row: AuthBinaryRow) => 'group_id' in target || row.origin.kind === 'client';
  // The operator's edits, valid while the server's list is the one they started from.
  const [draft, setDraft] = useState<{ base: unknown; entries: AuthBinaryRow[] } | null>(null);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [saving, setSaving] = useState(false);
  const sets = useQuery({
    queryKey: [...tdePolicyKeys.all, 'signature-set-options'],
    queryFn: () => listElements('cte', { page: 1, page_size: 1000, kind: 'signature' }),
    enabled: editing !== null,
  });
  const serverOwn = (listed.data?.data ?? []).filter(isOwn);
  const own = draft && draft.base === listed.data ? draft.entries : serverOwn;
  const edit = (entries: AuthBinaryRow[]) => setDraft({ base: listed.data, entries });
  const inherited = (listed.data?.data ?? []).filter((r) => !isOwn(r));
  const dirty = JSON.stringify(own) !== JSON.stringify(serverOwn);
  const rows: Row[] = [
    ...own.map((r, index) => ({ ...r, key: `own-${index}`, index })),
    ...inherited.map((r, i) => ({ ...r, key: `inherited-${i}`, index: null })),
  ];

  const save = async () => {
    setSaving(true);
    try {
      await setAuthBinaries({
        ...target,
        entries: own.map((r) => ({
          filename: r.filename,
          privilege: r.privilege,
          signature_set_id: r.signature_set_id,
        })),
      });
      setDraft(null);
      void message.success(t('tdeClient:binaries.saved'));
      await queryClient.invalidateQueries({ queryKey: authBinaryKeys.all });
    } catch {
      // The server's message is shown by the API client; the draft stays for correction.
    } finally {
      setSaving(false);
    }
  };

  const columns: ColumnsType<Row> = [
    {
      title: t('tdeClient:binaries.filename'),
      dataIndex: 'filename',
      render: (filename: string) => <Typography.Text code>{filename}</Typography.Text>,
    },
    {
      title: t('tdeClient:binaries.privilege'),
      dataIndex: 'privilege',
      render: (p: AuthBinaryPrivilege) => t(`tdeClient:binaries.privileges.${p}`),
    },
    {
      title: t('tdeClient:binaries.signatureSet'),
      dataIndex: 'signature_set_name',
      render: (name: string | null, row) => name ?? row.signature_set_id ?? '-',
    },
    {
      title: t('tdeClient:fields.origin'),
      dataIndex: 'origin',
      render: (origin: AuthBinaryRow['origin']) =>
        origin.kind === 'client' ? (
          <Tag>{t('tdeClient:origin.client')}</Tag>
        ) : (
          <Tag color="blue">{t('tdeClient:origin.group', { name: origin.name })}</Tag>
        ),
    },
    {
      key: 'actions',
      title: '',
      render: (_: unknown, row) =>
        row.index === null ? (
          <Typography.Text type="secondary">{t('tdeClient:binaries.inherited')}</Typography.Text>
        ) : (
          canWrite && (
            <RowActions
              items={[
                {
                  label: t('tdeClient:binaries.edit'),
                  onClick: () => setEditing(row.index),
                  testId: `binary-edit-${row.filename}`,
                },
                {
                  label: t('tdeClient:binaries.remove'),
                  danger: true,
                  onClick: () => edit(own.filter((_r, i) => i !== row.index)),
                  testId: `binary-remove-${row.filename}`,
                },
              ]}
            />
          )
        ),
    },
  ];

  const current = typeof editing === 'number' ? own[editing] : undefined;
  const setOptions = [
    { value: '', label: t('tdeClient:binaries.noSignatureSet') },
    ...(sets.data?.data ?? []).map((s) => ({ value: s.id, label: s.name })),
  ];

  return (
    <Flex vertical gap={12} data-testid="auth-binaries">
      <Alert type="info" showIcon message={t('tdeClient:binaries.about')} />
      {canWrite && (
        <Flex justify="flex-end">
          <Space>
            <Button onClick={() => setEditing('new')} data-testid="binary-add">
              {t('tdeClient:binaries.add')}
            </Button>
            <Button
              type="primary"
              disabled={!dirty}
              loading={saving}
              onClick={() => void save()}
              data-testid="binary-save"
            >
              {t('tdeClient:binaries.save')}
            </Button>
          </Space>
        </Flex>
      )}
      <Table<Row>
        rowKey="key"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={listed.isLoading}
        dataSource={rows}
        columns={columns}
        pagination={false}
        locale={{ emptyText: t('tdeClient:binaries.empty') }}
        onRow={(row) =>
          ({ 'data-testid': `binary-row-${row.filename}` }) as React.HTMLAttributes<HTMLElement>
        }
      />
      <FormModal<BinaryValues>
        open={editing !== null}
        title={t(editing === 'new' ? 'tdeClient:binaries.addTitle' : 'tdeClient:binaries.editTitle')}
        okTestId="binary-ok"
        initialValues={{
          filename: current?.filename ?? '',
          privilege: current?.privilege ?? 'authenticator',
          signature_set_id: current?.signature_set_id ?? '',
        }}
        fields={[
          {
            name: 'filename',
            label: t('tdeClient:binaries.filename'),
            placeholder: '/usr/sbin/sshd',
            rules: [
              { required: true, message: t('tdeClient:binaries.filenameRule') },
              { pattern: /^(\/|[A-Za-z]:\\)/u, message: t('tdeClient:binaries.filenameRule') },
            ],
            testId: 'binary-filename',
          },
          {
            name: 'privilege',
            label: t('tdeClient:binaries.privilege'),
            kind: 'select',
            options: authBinaryPrivileges.map((p) => ({
              value: p,
              label: t(`tdeClient:binaries.privileges.${p}`),
            })),
            testId: 'binary-privilege',
          },
          {
            name: 'signature_set_id',
            label: t('tdeClient:binaries.signatureSet'),
            kind: 'select',
            options: setOptions,
            testId: 'binary-signature-set',
          },
        ]}
        onSubmit={(values) => {
          const setId = values.signature_set_id?.trim() ?? '';
          const entry: AuthBinaryRow = {
            filename: values.filename.trim(),
            privilege: values.privilege,
            signature_set_id: setId === '' ? null : setId,
            signature_set_name:
              setId === '' ? null : (sets.data?.data.find((s) => s.id === setId)?.name ?? null),
            origin:
              'group_id' in target
                ? { kind: 'group', id: target.group_id, name: groupName }
                : { kind: 'client' },
          };
          edit(editing === 'new' ? [...own, entry] : own.map((r, i) => (i === editing ? entry : r)));
          return Promise.resolve();
        }}
        onClose={() => setEditing(null)}
      />
    </Flex>
  );
}
