import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Flex, Form, Modal, Select, Table, Tabs } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type ClientStatus } from '@ksp/contracts';
import {
  addGroupMembers,
  agentClientKeys,
  clientGroupKeys,
  fetchClientGroup,
  listAgentClients,
  removeGroupMembers,
  updateClientGroup,
} from '../../api/tde-client';
import { RowActions } from '../../components/columns';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { FormModal } from '../../components/form-modal';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { PageHeader } from '../../components/page-header';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag } from '../../components/client-status';
import { agentClientDetailPath } from './client-list-page';
import { AuthBinaryTable } from './auth-binaries';
import { GuardPointTable } from './guard-points';
import { groupBody, useGroupFields, type GroupValues } from './group-list-page';

interface Member {
  id: string;
  name: string;
  host: string;
  status: ClientStatus;
}

/** TDE › client group details (docs/modules.md#client-groups): the group, its members, its guard points. */
export default function GroupDetailPage() {
  const t = useT();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.tdeClient.groupUpdate);
  const fields = useGroupFields();
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const { run, buttonProps } = useSubmit();
  const detail = useQuery({ queryKey: clientGroupKeys.detail(id), queryFn: () => fetchClientGroup(id) });
  const group = detail.data;
  const candidates = useQuery({
    queryKey: [...agentClientKeys('cte').list, 'candidates'],
    queryFn: () => listAgentClients('cte', { page: 1, page_size: 1000 }),
    enabled: adding,
  }).data?.data;
  const back = () => void navigate('/cte/clients/clients-groups');
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: clientGroupKeys.all });
    await queryClient.invalidateQueries({ queryKey: agentClientKeys('cte').all });
  };
  const remove = (member: Member) =>
    group &&
    confirm({
      title: t('tdeClient:group.removeTitle', { client: member.name, name: group.name }),
      content: t('tdeClient:group.removeContent'),
      okText: t('tdeClient:group.remove'),
      danger: true,
      testId: 'member-confirm-remove',
      onOk: async () => {
        await removeGroupMembers(group.id, [member.id]);
        void message.success(t('tdeClient:group.removed', { client: member.name, name: group.name }));
        await refresh();
      },
    });

  const members = group && (
    <Flex vertical gap={12}>
      {canWrite && (
        <Flex justify="flex-end">
          <Button type="primary" onClick={() => setAdding(true)} data-testid="group-add-members">
            {t('tdeClient:group.addMembers')}
          </Button>
        </Flex>
      )}
      <Table<Member>
        rowKey="id"
        size="small"
        pagination={false}
        scroll={{ x: 'max-content' }}
        dataSource={group.member_list}
        onRow={(row) => ({ 'data-testid': `member-row-${row.name}` }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('kadp:fields.status'),
            dataIndex: 'status',
            render: (s: ClientStatus) => <ClientStatusTag status={s} />,
          },
          {
            title: t('kadp:fields.name'),
            dataIndex: 'name',
            render: (name: string, row) => <Link to={agentClientDetailPath('cte', row.id)}>{name}</Link>,
          },
          { title: t('kadp:fields.host'), dataIndex: 'host', render: (v: string) => v || '-' },
          {
            key: 'actions',
            title: '',
            render: (_: unknown, row) =>
              canWrite && (
                <RowActions
                  items={[
                    {
                      label: t('tdeClient:group.remove'),
                      danger: true,
                      onClick: () => remove(row),
                      testId: `member-remove-${row.name}`,
                    },
                  ]}
                />
              ),
          },
        ]}
      />
    </Flex>
  );

  return (
    <Flex vertical gap={16} data-testid="group-detail">
      <PageHeader
        onBack={back}
        backLabel={t('tdeClient:group.back')}
        titleTestId="group-detail-title"
        title={group ? t('tdeClient:group.detailTitle', { name: group.name }) : ''}
        actions={
          group &&
          canWrite && (
            <Button onClick={() => setEditing(true)} data-testid="group-edit">
              {t('tdeClient:group.edit')}
            </Button>
          )
        }
      />
      {group && (
        <>
          <Card size="small">
            <Descriptions column={{ xs: 1, sm: 1, md: 2 }} bordered size="small" data-testid="group-info">
              <Descriptions.Item label={t('tdeClient:fields.groupName')}>{group.name}</Descriptions.Item>
              <Descriptions.Item label={t('tdeClient:fields.profile')}>
                {group.profile ?? t('kadp:defaultProfile')}
              </Descriptions.Item>
              <Descriptions.Item label={t('tdeClient:fields.description')}>
                {group.description || '-'}
              </Descriptions.Item>
              <Descriptions.Item label={t('tdeClient:fields.created')}>
                {formatDateTime(group.created_at)}
              </Descriptions.Item>
            </Descriptions>
          </Card>
          <Tabs
            items={[
              {
                key: 'members',
                label: `${t('tdeClient:tabs.members')} (${group.members})`,
                children: members,
              },
              {
                key: 'guard-points',
                label: `${t('tdeClient:tabs.guardPoints')} (${group.guard_points})`,
                children: <GuardPointTable area="cte" target={{ group_id: group.id }} />,
              },
              {
                key: 'binaries',
                label: t('tdeClient:tabs.binaries'),
                children: <AuthBinaryTable target={{ group_id: group.id }} groupName={group.name} />,
              },
            ]}
          />
        </>
      )}
      <FormModal<GroupValues>
        open={editing}
        title={t('tdeClient:group.editTitle', { name: group?.name ?? '' })}
        okTestId="group-ok"
        schema={api.tdeClient.groupCreate.body}
        fields={fields}
        initialValues={{
          name: group?.name ?? '',
          description: group?.description ?? '',
          profile: group?.profile ?? '',
        }}
        onSubmit={async (values) => {
          if (!group) return;
          const saved = await updateClientGroup({ id: group.id, ...groupBody(values) });
          void message.success(t('tdeClient:group.saved', { name: saved.name }));
          await refresh();
        }}
        onClose={() => setEditing(false)}
      />
      <Modal
        open={adding}
        title={t('tdeClient:group.addMembersTitle', { name: group?.name ?? '' })}
        onCancel={() => setAdding(false)}
        okButtonProps={{ ...buttonProps, disabled: chosen.length === 0, 'data-testid': 'members-ok' }}
        onOk={() =>
          void run(
            async () => {
              if (!group) return;
              await addGroupMembers(group.id, chosen);
              void message.success(t('tdeClient:group.added', { name: group.name }));
              await refresh();
            },
            () => {
              setAdding(false);
              setChosen([]);
            },
          )
        }
        destroyOnHidden
      >
        <Form layout="vertical">
          <Form.Item label={t('tdeClient:group.clients')}>
            <Select
              mode="multiple"
              value={chosen}
              onChange={setChosen}
              data-testid="members-select"
              optionFilterProp="label"
              options={(candidates ?? [])
                .filter((c) => !group?.member_list.some((m) => m.id === c.id))
                .map((c) => ({ value: c.id, label: c.name }))}
            />
          </Form.Item>
        </Form>
      </Modal>
    </Flex>
  );
}
