import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { useT } from '../../i18n/i18n';

/**
 * The columns the element, policy and profile lists share: the name opening the record, an
 * optional description ("-" when empty), the update time, and the Details / Delete actions
 * (test ids `<testId>-open-<name>`, `-details-`, `-delete-`, `-confirm-delete`).
 */
export function usePolicyListColumns<Row extends { name: string; description: string; updated_at: string }>({
  testId,
  open,
  canDelete,
  deleteTitle,
  remove,
  queryKey,
}: {
  testId: string;
  open: (row: Row) => void;
  canDelete: (row: Row) => boolean;
  deleteTitle: (row: Row) => string;
  remove: (row: Row) => Promise<unknown>;
  /** Refreshed once a record is deleted. */
  queryKey: readonly unknown[];
}) {
  const t = useT();
  const kit = useColumnKit<Row>();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  return {
    name: (badge?: (row: Row) => ReactNode): ColumnType<Row> =>
      kit.name(t('tdePolicy:fields.name'), 'name', (name: string, row) => (
        <Typography.Link strong onClick={() => open(row)} data-testid={`${testId}-open-${name}`}>
          {name}
          {badge && <> {badge(row)}</>}
        </Typography.Link>
      )),
    description: {
      title: t('tdePolicy:fields.description'),
      dataIndex: 'description',
      render: (v: string) => v || '-',
    } satisfies ColumnType<Row>,
    updated: kit.time(t('tdePolicy:fields.updated'), 'updated_at'),
    actions: kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('tdePolicy:actions.details'),
            onClick: () => open(row),
            testId: `${testId}-details-${row.name}`,
          },
          {
            label: t('tdePolicy:actions.delete'),
            danger: true,
            show: canDelete(row),
            testId: `${testId}-delete-${row.name}`,
            onClick: () =>
              confirmDelete({
                title: deleteTitle(row),
                remove: () => remove(row),
                refresh: () => queryClient.invalidateQueries({ queryKey }),
                testId: `${testId}-confirm-delete`,
              }),
          },
        ]}
      />
    )),
  };
}
