import type { ReactNode } from 'react';
import { Button, Grid, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { useT } from '../i18n/i18n';
import { formatDateTime } from './date-time';

/**
 * Where a table pins its name and action columns: on wide screens only. On a phone a
 * pinned column on each side would leave no room for the scrolling ones between them.
 */
export function useStickyColumns(): { left: 'left' | undefined; right: 'right' | undefined } {
  const screens = Grid.useBreakpoint();
  return screens.md ? { left: 'left', right: 'right' } : { left: undefined, right: undefined };
}

/**
 * Gives each column its width (by `dataIndex`, or `key` for computed columns). A table
 * whose columns all have widths scrolls by their sum (see `tableScrollX`), so no column
 * can end up under a pinned one.
 */
export function withWidths<Row>(
  columns: ColumnType<Row>[],
  widths: Record<string, number>,
): ColumnType<Row>[] {
  return columns.map((column) => {
    const name = String(column.key ?? column.dataIndex ?? '');
    return Object.hasOwn(widths, name) ? { ...column, width: widths[name] } : column;
  });
}

/** The width of the selection checkbox column of a table with batch selection. */
const SELECTION_WIDTH = 48;

/** `scroll.x` of a table: the sum of the widths when every column has one, else the content's width. */
export function tableScrollX(
  columns: readonly { width?: unknown }[],
  selectable: boolean,
): number | 'max-content' {
  let sum = selectable ? SELECTION_WIDTH : 0;
  for (const column of columns) {
    if (typeof column.width !== 'number') return 'max-content';
    sum += column.width;
  }
  return sum;
}

const textOf = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) || '-' : '-';

/** Text that an ellipsis column cuts, whole in a tooltip. */
export function EllipsisText({ text }: { text: string }) {
  return (
    <Tooltip title={text} placement="topLeft">
      <span>{text}</span>
    </Tooltip>
  );
}

/** One link-style button of a row's actions. */
export interface RowAction {
  label: ReactNode;
  onClick: () => void;
  testId?: string;
  danger?: boolean;
  disabled?: boolean;
  /** Left out when false (the default is shown). */
  show?: boolean;
}

/** A row's actions as link buttons, then any other controls (a "More" menu, a link). */
export function RowActions({ items, children }: { items: readonly RowAction[]; children?: ReactNode }) {
  return (
    <Space size={0}>
      {items
        .filter((item) => item.show !== false)
        .map((item, index) => (
          <Button
            key={item.testId ?? index}
            type="link"
            size="small"
            danger={item.danger}
            disabled={item.disabled}
            onClick={item.onClick}
            data-testid={item.testId}
          >
            {item.label}
          </Button>
        ))}
      {children}
    </Space>
  );
}

/** A coloured tag for a status value: `colors` and `labels` are per value. */
export function StatusTag<S extends string>({
  value,
  colors,
  labels,
  testId,
}: {
  value: S;
  colors: Record<S, string>;
  labels: Record<S, ReactNode>;
  testId?: string;
}) {
  return (
    <Tag color={colors[value]} data-testid={testId}>
      {labels[value]}
    </Tag>
  );
}

/**
 * The columns every list repeats: the pinned, bold name; a date-time; the pinned
 * actions column. Pinning follows the screen width (see `useStickyColumns`).
 */
export function useColumnKit<Row extends object>() {
  const t = useT();
  const sticky = useStickyColumns();
  return {
    sticky,
    /** The first column: the row's name in bold, pinned left on wide screens. */
    name: (
      title: string,
      dataIndex: keyof Row & string,
      render?: (value: string, row: Row) => ReactNode,
    ): ColumnType<Row> => ({
      title,
      dataIndex,
      fixed: sticky.left,
      render: render ?? ((value: string) => <Typography.Text strong>{value}</Typography.Text>),
    }),
    /**
     * A text column cut to its width with an ellipsis, the whole text in a tooltip: a long
     * value (a subject, a target) no longer widens the table past the screen.
     */
    text: (
      title: string,
      dataIndex: keyof Row & string,
      format?: (value: unknown, row: Row) => string,
    ): ColumnType<Row> => ({
      title,
      dataIndex,
      ellipsis: { showTitle: false },
      render: (value: unknown, row: Row) => (
        <EllipsisText text={format ? format(value, row) : textOf(value)} />
      ),
    }),
    /** A date-time column ("-" when empty). */
    time: (title: string, dataIndex: keyof Row & string): ColumnType<Row> => ({
      title,
      dataIndex,
      render: (value: string | null) => formatDateTime(value),
    }),
    /** A row's "Edit" action; `show` false leaves it out. */
    edit: (onClick: () => void, testId: string, show = true): RowAction => ({
      label: t('common:actions.edit'),
      onClick,
      testId,
      show,
    }),
    /** A row's "Delete" action, in red; `show` false leaves it out. */
    remove: (onClick: () => void, testId: string, show = true): RowAction => ({
      label: t('common:actions.delete'),
      onClick,
      testId,
      show,
      danger: true,
    }),
    /** The last column: the row's actions, pinned right on wide screens. */
    actions: (render: (row: Row) => ReactNode): ColumnType<Row> => ({
      title: t('common:actions.operations'),
      key: 'operations',
      fixed: sticky.right,
      render: (_value: unknown, row: Row) => render(row),
    }),
  };
}
