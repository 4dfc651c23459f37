import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { api, DataOf } from '@ksp/contracts';
import { accessKeys, addUsersToDomain, listUsers, removeUsersFromDomain } from '../../api/access';
import { domainKeys, domainMembers } from '../../api/domain';
import { MembersModal } from '../../components/members-modal';
import { PagedSelect } from '../../components/paged-select';
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
  const queryClient = useQueryClient();
  const members = useQuery({
    queryKey: domainKeys.members(domain?.id ?? ''),
    queryFn: () => domainMembers(domain!.id),
    enabled: domain !== null,
    staleTime: 0,
  });

  return (
    <MembersModal
      open={domain !== null}
      title={t('access:domain.membersTitle', { name: domain?.name ?? '' })}
      help={t('access:domain.membersHelp')}
      members={members.data ?? []}
      loading={members.isFetching}
      emptyText={t('access:domain.noMembers')}
      canRemove={canWrite}
      canAdd={canWrite && canPick}
      picker={({ value, onChange, exclude, testId }) => (
        <PagedSelect<{ id: string; username: string }>
          mode="multiple"
          allowClear
          value={value}
          onChange={(ids: string[]) => onChange(ids)}
          queryKey={accessKeys.users}
          fetchPage={(page, pageSize, search) =>
            listUsers({ page, page_size: pageSize, ...(search.trim() ? { username: search.trim() } : {}) })
          }
          toOption={(user) => ({ value: user.id, label: user.username })}
          exclude={(user) => exclude.includes(user.id)}
          placeholder={t('access:domain.chooseUsers')}
          style={{ width: '100%' }}
          data-testid={testId}
        />
      )}
      addText={t('common:actions.add')}
      removeConfirm={(user) =>
        t('access:domain.removeConfirm', { user: user.name, domain: domain?.name ?? '' })
      }
      onAdd={(ids) => (domain ? addUsersToDomain(domain.id, ids) : Promise.resolve())}
      // e.g. a user must stay in at least one domain: the server's message is shown.
      onRemove={(user) => (domain ? removeUsersFromDomain(domain.id, [user.id]) : Promise.resolve())}
      onChanged={() =>
        Promise.all([
          members.refetch(),
          queryClient.invalidateQueries({ queryKey: domainKeys.all }),
          queryClient.invalidateQueries({ queryKey: accessKeys.users }),
        ])
      }
      onClose={onClose}
      testId="domain-member"
    />
  );
}
