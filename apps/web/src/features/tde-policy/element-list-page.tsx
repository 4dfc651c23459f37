import { Alert, Space, Tabs, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, policyElementKinds, type PolicyElementKind } from '@ksp/contracts';
import type { DataOf } from '@ksp/contracts';
import { deleteElement, listElements, tdePolicyKeys } from '../../api/tde-policy';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';
import { usePolicyListColumns } from './list-columns';

type ElementRow = DataOf<typeof api.tdePolicy.elementList>['data'][number];

/** TDE / RDM › policy elements: a tab per set kind; name, description, entries, used by, updated. */
export default function ElementListPage() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const navigate = useNavigate();
  const [params, setParams] = useViewSearchParams();
  const kind: PolicyElementKind = policyElementKinds.find((k) => k === params.get('kind')) ?? 'resource';
  // Elements are written through the TDE calls only (shared with TDE policies).
  const canWrite = useCanCall(api.tdePolicy.elementCreate);
  const col = usePolicyListColumns<ElementRow>({
    testId: 'element',
    open: (row) => void navigate(paths.element(row.id)),
    canDelete: () => canWrite,
    deleteTitle: (row) =>
      t('tdePolicy:elements.deleteTitle', { kind: t(`tdePolicy:kinds.${row.kind}`), name: row.name }),
    remove: (row) => deleteElement(row.id),
    queryKey: tdePolicyKeys.elements,
  });

  const columns: ColumnsType<ElementRow> = [
    col.name(),
    col.description,
    { title: t('tdePolicy:fields.entries'), dataIndex: 'entry_count' },
    {
      title: t('tdePolicy:fields.usedBy'),
      dataIndex: 'used_by',
      render: (users: ElementRow['used_by']) =>
        users.length ? (
          <Space size={[4, 4]} wrap>
            {users.map((u) => (
              <Tag key={u.id}>{u.name}</Tag>
            ))}
          </Space>
        ) : (
          t('tdePolicy:elements.usedByNone')
        ),
    },
    col.updated,
    col.actions,
  ];

  const chooseKind = (next: string) => {
    const p = new URLSearchParams();
    p.set('kind', next);
    setParams(p);
  };

  return (
    <>
      {area === 'rdm' && !canWrite && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          message={t('tdePolicy:elements.rdmReadOnly')}
        />
      )}
      <Tabs
        activeKey={kind}
        onChange={chooseKind}
        items={policyElementKinds.map((k) => ({
          key: k,
          label: <span data-testid={`element-tab-${k}`}>{t(`tdePolicy:kinds.${k}`)}</span>,
        }))}
      />
      <ListPage<ElementRow>
        key={kind}
        queryKey={[...tdePolicyKeys.elements, area, kind]}
        testId="element"
        fetchPage={({ page, page_size, filters }) =>
          listElements(area, { page, page_size, kind, name: filters.name })
        }
        rowKey="id"
        rowTestId={(row) => `element-row-${row.name}`}
        columns={columns}
        keepParams={['kind']}
        filters={[{ name: 'name', label: t('tdePolicy:fields.name') }]}
        toolbar={
          canWrite && (
            <ListAddButton
              label={t('tdePolicy:elements.create')}
              onClick={() => void navigate(`${paths.createElement}?kind=${kind}`)}
              testId="element-create"
            />
          )
        }
      />
    </>
  );
}
