import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Select } from 'antd';
import { accessKeys, addUsersToDomain, removeUsersFromDomain, userDetail } from '../../api/access';
import { allDomains, domainKeys } from '../../api/domain';
import { MembersModal } from '../../components/members-modal';
import { useT } from '../../i18n/i18n';
import type { UserRow } from './user-forms';

/** The domains a user belongs to: add it to more, remove it from some (never from its last). */
export function UserDomainsModal({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const t = useT();
  const queryClient = useQueryClient();
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

  return (
    <MembersModal
      open={user !== null}
      title={t('access:user.domainsTitle', { name: user?.username ?? '' })}
      help={t('access:user.domainsHelp')}
      members={detail.data?.domains ?? []}
      canRemove
      canAdd
      picker={({ value, onChange, exclude, testId }) => (
        <Select
          mode="multiple"
          allowClear
          value={value}
          onChange={onChange}
          options={(domains.data ?? [])
            .filter((domain) => !exclude.includes(domain.id))
            .map((domain) => ({ value: domain.id, label: domain.name }))}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('access:user.chooseDomains')}
          style={{ width: '100%' }}
          data-testid={testId}
        />
      )}
      addText={t('common:actions.add')}
      removeConfirm={(domain) => t('access:user.removeFromDomain', { domain: domain.name })}
      onAdd={async (ids) => {
        if (!user) return;
        for (const domainId of ids) await addUsersToDomain(domainId, [user.id]);
      }}
      // e.g. "a user must stay in at least one domain": shown by the API client.
      onRemove={(domain) => (user ? removeUsersFromDomain(domain.id, [user.id]) : Promise.resolve())}
      onChanged={() =>
        Promise.all([
          detail.refetch(),
          queryClient.invalidateQueries({ queryKey: accessKeys.users }),
          queryClient.invalidateQueries({ queryKey: domainKeys.all }),
        ])
      }
      onClose={onClose}
      testId="user-domain"
    />
  );
}
