import { Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, policyTypes, type PolicyRow } from '@ksp/contracts';
import { deletePolicy, listPolicies, tdePolicyKeys } from '../../api/tde-policy';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';
import { usePolicyListColumns } from './list-columns';

/** TDE / RDM › policies: name, type, learn mode, revision, rule counts (docs/modules.md#policies). */
export default function PolicyListPage() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const navigate = useNavigate();
  const canWrite = useCanCall(area === 'rdm' ? api.rdmPolicy.policyCreate : api.tdePolicy.policyCreate);
  const col = usePolicyListColumns<PolicyRow>({
    testId: 'policy',
    open: (row) => void navigate(paths.detail(row.id)),
    canDelete: () => canWrite,
    deleteTitle: (row) => t('tdePolicy:policies.deleteTitle', { name: row.name }),
    remove: (row) => deletePolicy(area, row.id),
    queryKey: tdePolicyKeys.policies,
  });

  const columns: ColumnsType<PolicyRow> = [
    col.name(),
    {
      title: t('tdePolicy:fields.type'),
      dataIndex: 'type',
      render: (type: PolicyRow['type']) => (
        <Tag color={type === 'rdm' ? 'volcano' : 'blue'}>{t(`tdePolicy:types.${type}`)}</Tag>
      ),
    },
    col.description,
    {
      title: t('tdePolicy:fields.learnMode'),
      dataIndex: 'learn_mode',
      render: (v: boolean) => (v ? <Tag color="gold">✓</Tag> : '-'),
    },
    { title: t('tdePolicy:fields.securityRules'), dataIndex: 'security_rule_count' },
    { title: t('tdePolicy:fields.keyRules'), dataIndex: 'key_rule_count' },
    { title: t('tdePolicy:fields.revision'), dataIndex: 'revision' },
    col.updated,
    col.actions,
  ];

  return (
    <ListPage<PolicyRow>
      queryKey={[...tdePolicyKeys.policies, area]}
      testId="policy"
      title={area === 'rdm' ? t('tdePolicy:policies.rdmTitle') : t('tdePolicy:policies.title')}
      fetchPage={({ page, page_size, filters }) =>
        listPolicies(area, {
          page,
          page_size,
          name: filters.name,
          ...(area === 'cte' ? { type: policyTypes.find((v) => v === filters.type) } : {}),
        })
      }
      rowKey="id"
      rowTestId={(row) => `policy-row-${row.name}`}
      columns={columns}
      filters={[
        { name: 'name', label: t('tdePolicy:fields.name') },
        ...(area === 'cte'
          ? [
              {
                name: 'type',
                label: t('tdePolicy:fields.type'),
                options: policyTypes.map((v) => ({ value: v, label: t(`tdePolicy:types.${v}`) })),
              },
            ]
          : []),
      ]}
      toolbar={
        canWrite && (
          <ListAddButton
            label={t('tdePolicy:policies.create')}
            onClick={() => void navigate(paths.create)}
            testId="policy-create"
          />
        )
      }
    />
  );
}
