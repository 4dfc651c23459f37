import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Modal, Popconfirm, Typography } from 'antd';
import type { api, DataOf } from '@ksp/contracts';
import { accessKeys, addUsersToDomain, listUsers, removeUsersFromDomain } from '../../api/access';
import { domainKeys, domainMembers } from '../../api/domain';
import { PagedSelect } from '../../components/paged-select';
import { NameList } from '../../components/name-list';
import { useT } from '../../i18n/i18n';

export type DomainRow = DataOf<typeof api.domain.list>['data'][number];

/** Members of a domain: add users (user/domain/add-user), remove them (user/domain/delete-user). */
export function DomainMembersModal({
  domain,
  canWrite,
  canPick,
  onClose,
}: {
  domain: DomainRow | null;
  canWrite: boolean;
  /** The user list may be read (to pick users to add). */
  canPick: boolean;
  onClose: () => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const members = useQuery({
    queryKey: domainKeys.members(domain?.id ?? ''),
    queryFn: () => domainMembers(domain!.id),
    enabled: domain !== null,
    staleTime: 0,
  });
  const list = members.data ?? [];

  const changed = () =>
    Promise.all([
      members.refetch(),
      queryClient.invalidateQueries({ queryKey: domainKeys.all }),
      queryClient.invalidateQueries({ queryKey: accessKeys.users }),
    ]);

  const add = async () => {
    if (!domain || picked.length === 0) return;
    setBusy(true);
    try {
      await addUsersToDomain(domain.id, picked);
      setPicked([]);
      void message.success(t('common:feedback.saved'));
    } catch {
      // Shown by the client.
    } finally {
      setBusy(false);
    }
    await changed();
  };

  const remove = async (userId: string) => {
    if (!domain) return;
    try {
      await removeUsersFromDomain(domain.id, [userId]);
      void message.success(t('common:feedback.saved'));
    } catch {
      // e.g. a user must stay in at least one domain: the server's message was shown.
    }
    await changed();
  };

  const close = () => {
    setPicked([]);
    onClose();
  };

  return (
    <Modal
      open={domain !== null}
      title={t('access:domain.membersTitle', { name: domain?.name ?? '' })}
      onCancel={close}
      footer={<Button onClick={close}>{t('access:common.close')}</Button>}
      destroyOnHidden
      width={560}
    >
      <Typography.Paragraph type="secondary">{t('access:domain.membersHelp')}</Typography.Paragraph>
      <NameList
        items={list}
        loading={members.isFetching}
        testId="domain-member-list"
        emptyText={t('access:domain.noMembers')}
        action={
          canWrite
            ? (user) => (
                <Popconfirm
                  title={t('access:domain.removeConfirm', {
                    user: user.name,
                    domain: domain?.name ?? '',
                  })}
                  okText={t('access:common.remove')}
                  cancelText={t('common:actions.cancel')}
                  okButtonProps={{ danger: true, 'data-testid': 'domain-member-remove-ok' }}
                  onConfirm={() => remove(user.id)}
                >
                  <Button type="link" size="small" danger data-testid={`domain-member-remove-${user.name}`}>
                    {t('access:common.remove')}
                  </Button>
                </Popconfirm>
              )
            : undefined
        }
      />
      {canWrite && canPick && (
        <Flex gap={8} wrap style={{ marginTop: 16 }}>
          <PagedSelect<{ id: string; username: string }>
            mode="multiple"
            allowClear
            value={picked}
            onChange={(value: string[]) => setPicked(value)}
            queryKey={accessKeys.users}
            fetchPage={(page, pageSize, search) =>
              listUsers({ page, page_size: pageSize, ...(search.trim() ? { username: search.trim() } : {}) })
            }
            toOption={(user) => ({ value: user.id, label: user.username })}
            exclude={(user) => list.some((member) => member.id === user.id)}
            placeholder={t('access:domain.chooseUsers')}
            style={{ flex: '1 1 240px', minWidth: 0 }}
            data-testid="domain-member-select"
          />
          <Button type="primary" loading={busy} onClick={() => void add()} data-testid="domain-member-add">
            {t('common:actions.add')}
          </Button>
        </Flex>
      )}
    </Modal>
  );
}
