import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Modal, Popconfirm, Select, Typography } from 'antd';
import { accessKeys, addUsersToDomain, removeUsersFromDomain, userDetail } from '../../api/access';
import { allDomains, domainKeys } from '../../api/domain';
import { NameList } from '../../components/name-list';
import { useT } from '../../i18n/i18n';
import type { UserRow } from './user-forms';

/** The domains a user belongs to: add it to more, remove it from some (never from its last). */
export function UserDomainsModal({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const detail = useQuery({
    queryKey: accessKeys.userDetail(user?.id ?? ''),
    queryFn: () => userDetail(user!.id),
    enabled: user !== null,
    initialData: user ?? undefined,
    staleTime: 0,
  });
  const domains = useQuery({
    queryKey: domainKeys.options,
    queryFn: allDomains,
    enabled: user !== null,
    staleTime: 30_000,
  });
  const current = detail.data?.domains ?? [];
  const options = (domains.data ?? [])
    .filter((domain) => !current.some((member) => member.id === domain.id))
    .map((domain) => ({ value: domain.id, label: domain.name }));

  const changed = async () => {
    await Promise.all([
      detail.refetch(),
      queryClient.invalidateQueries({ queryKey: accessKeys.users }),
      queryClient.invalidateQueries({ queryKey: domainKeys.all }),
    ]);
  };

  const add = async () => {
    if (!user || adding.length === 0) return;
    setBusy(true);
    try {
      for (const domainId of adding) await addUsersToDomain(domainId, [user.id]);
      setAdding([]);
      void message.success(t('common:feedback.saved'));
    } catch {
      // The client showed the server's message.
    } finally {
      setBusy(false);
      await changed();
    }
  };

  const remove = async (domainId: string) => {
    if (!user) return;
    try {
      await removeUsersFromDomain(domainId, [user.id]);
      void message.success(t('common:feedback.saved'));
    } catch {
      // e.g. "a user must stay in at least one domain": shown by the client.
    }
    await changed();
  };

  return (
    <Modal
      open={user !== null}
      title={t('access:user.domainsTitle', { name: user?.username ?? '' })}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('access:common.close')}</Button>}
      destroyOnHidden
      width={560}
    >
      <Typography.Paragraph type="secondary">{t('access:user.domainsHelp')}</Typography.Paragraph>
      <NameList
        items={current}

        testId="user-domain-list"
        emptyText={undefined}
        action={(domain) => (
          <Popconfirm
            title={t('access:user.removeFromDomain', { domain: domain.name })}
            okText={t('access:common.remove')}
            cancelText={t('common:actions.cancel')}
            okButtonProps={{ danger: true, 'data-testid': 'user-domain-remove-ok' }}
            onConfirm={() => remove(domain.id)}
          >
            <Button type="link" size="small" danger data-testid={`user-domain-remove-${domain.name}`}>
              {t('access:common.remove')}
            </Button>
          </Popconfirm>
        )}
      />
      <Flex gap={8} wrap style={{ marginTop: 16 }}>
        <Select
          mode="multiple"
          allowClear
          value={adding}
          onChange={setAdding}
          options={options}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('access:user.chooseDomains')}
          style={{ flex: '1 1 240px', minWidth: 0 }}
          data-testid="user-domain-add-select"
        />
        <Button type="primary" loading={busy} onClick={() => void add()} data-testid="user-domain-add">
          {t('common:actions.add')}
        </Button>
      </Flex>
    </Modal>
  );
}
