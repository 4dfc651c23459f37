import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api } from '@ksp/contracts';
import {
  allDomains,
  createDomain,
  deleteDomains,
  domainKeys,
  listDomains,
  updateDomain,
} from '../../api/domain';
import { RowActions, useColumnKit } from '../../components/columns';
import { FormModal, type FormField } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useConfirmDelete } from '../../components/confirm-delete';
import { useT } from '../../i18n/i18n';
import { domainDescription } from '../../i18n/server-labels';
import { DomainMembersModal, type DomainRow } from './domain-members-modal';

interface DomainValues {
  name: string;
  description: string;
}

const isRoot = (domain: DomainRow) => domain.parent_id === null;

/** Settings › domains: tenant-like scopes, their members; only empty ones can go. */
export default function DomainPage() {
  const t = useT();
  const kit = useColumnKit<DomainRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.domain.create);
  const canListUsers = useCanCall(api.user.list);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<DomainRow | null>(null);
  const [members, setMembers] = useState<DomainRow | null>(null);
  const all = useQuery({ queryKey: domainKeys.options, queryFn: allDomains, staleTime: 30_000 });
  const nameOf = (id: string | null) => (id ? (all.data?.find((d) => d.id === id)?.name ?? '-') : '-');

  const refresh = () => queryClient.invalidateQueries({ queryKey: domainKeys.all });

  const confirmDelete = useConfirmDelete();
  // A domain that is not empty is refused: the server says what is still in it.
  const remove = (domain: DomainRow) =>
    confirmDelete({
      title: t('access:domain.deleteConfirm', { name: domain.name }),
      remove: () => deleteDomains([domain.id]),
      refresh,
    });

  const columns: ColumnsType<DomainRow> = [
    kit.name(t('access:domain.fields.name'), 'name', (name, domain) => (
      <Space size={4}>
        <Typography.Text strong>{name}</Typography.Text>
        {isRoot(domain) && <Tag color="blue">{t('access:domain.root')}</Tag>}
      </Space>
    )),
    {
      title: t('access:domain.fields.description'),
      dataIndex: 'description',
      render: (_description: string, domain) => domainDescription(domain) || '-',
    },
    {
      title: t('access:domain.fields.parent'),
      dataIndex: 'parent_id',
      render: (id: string | null) => nameOf(id),
    },
    {
      title: t('access:domain.fields.members'),
      dataIndex: 'users',
      align: 'right',
      render: (count: number) => <span data-testid="domain-member-count">{count}</span>,
    },
    kit.time(t('access:common.createdAt'), 'created_at'),
    kit.actions((domain) => (
      <RowActions
        items={[
          {
            label: t('common:actions.edit'),
            onClick: () => setEditing(domain),
            testId: `domain-edit-${domain.name}`,
            show: canWrite,
          },
          {
            label: t('access:domain.members'),
            onClick: () => setMembers(domain),
            testId: `domain-members-${domain.name}`,
          },
          {
            label: t('common:actions.delete'),
            onClick: () => remove(domain),
            testId: `domain-delete-${domain.name}`,
            danger: true,
            show: canWrite && !isRoot(domain),
          },
        ]}
      />
    )),
  ];

  const fields: FormField<DomainValues>[] = [
    {
      name: 'name',
      label: t('access:domain.fields.name'),
      extra: editing && isRoot(editing) ? t('access:domain.rootHint') : t('access:common.nameHint'),
      testId: 'domain-name',
    },
    {
      name: 'description',
      label: t('access:domain.fields.description'),
      kind: 'textarea',
      testId: 'domain-description',
    },
  ];

  return (
    <>
      <ListPage<DomainRow>
        queryKey={domainKeys.all}
        fetchPage={({ page, page_size, filters }) => listDomains({ page, page_size, name: filters.name })}
        rowKey="id"
        columns={columns}
        filters={[{ name: 'name', label: t('access:domain.fields.name') }]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="domain-add" />}
        onDelete={canWrite ? (ids) => deleteDomains(ids) : undefined}
        canSelect={(domain) => !isRoot(domain)}
      />
      <FormModal<DomainValues>
        open={creating}
        title={t('access:domain.createTitle')}
        schema={api.domain.create.body}
        fields={fields}
        initialValues={{ name: '', description: '' }}
        onSubmit={async (values) => {
          const created = await createDomain({
            name: values.name.trim(),
            description: values.description?.trim() ?? '',
          });
          void message.success(t('access:domain.created', { name: created.name }));
          await refresh();
        }}
        onClose={() => setCreating(false)}
      />
      <FormModal<DomainValues>
        open={editing !== null}
        title={t('access:domain.editTitle', { name: editing?.name ?? '' })}
        schema={api.domain.create.body}
        fields={fields}
        initialValues={editing ? { name: editing.name, description: editing.description } : undefined}
        onSubmit={async (values) => {
          if (!editing) return;
          const name = values.name.trim();
          // The root domain keeps its name: a rename is sent anyway so the server can say so.
          await updateDomain({
            id: editing.id,
            ...(name !== editing.name ? { name } : {}),
            description: values.description?.trim() ?? '',
          });
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={() => setEditing(null)}
      />
      <DomainMembersModal
        domain={members}
        canWrite={canWrite}
        canPick={canListUsers}
        onClose={() => setMembers(null)}
      />
    </>
  );
}
