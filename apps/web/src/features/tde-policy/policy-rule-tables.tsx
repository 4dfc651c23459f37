import type { HTMLAttributes } from 'react';
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { Button, Space, Table, Tag, theme, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { PolicyEffect } from '@ksp/contracts';
import { useT } from '../../i18n/i18n';
import type { PolicyStep } from './policy-wizard';
import type { KeyRule, PolicyDraft, Rule } from './use-policy-draft';
import type { PolicyOptions } from './use-policy-options';

const move = <T,>(list: T[], index: number, by: -1 | 1): T[] => {
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(index + by, 0, item as T);
  return next;
};

interface OrderButtonsProps<T> {
  list: T[];
  index: number;
  set: (l: T[]) => void;
  prefix: string;
  disabled: boolean;
}

/** Moves a rule one place up or down its list. */
function OrderButtons<T>({ list, index, set, prefix, disabled }: OrderButtonsProps<T>) {
  const t = useT();
  return (
    <>
      <Button
        size="small"
        type="link"
        icon={<ArrowUpOutlined />}
        disabled={disabled || index === 0}
        onClick={() => set(move(list, index, -1))}
        aria-label={t('tdePolicy:actions.up')}
        data-testid={`${prefix}-up-${index}`}
      />
      <Button
        size="small"
        type="link"
        icon={<ArrowDownOutlined />}
        disabled={disabled || index === list.length - 1}
        onClick={() => set(move(list, index, 1))}
        aria-label={t('tdePolicy:actions.down')}
        data-testid={`${prefix}-down-${index}`}
      />
    </>
  );
}

/**
 * One ordered list of rules as a table: its order first, then `columns`, then (unless
 * read-only) the up / down, edit (with `onEdit`) and remove buttons. A row the server's
 * refusal names is marked. Test ids: `<prefix>-table`, `<prefix>-row-<i>`, `<prefix>-up-<i>`…;
 * the read-only copy's prefix is `review-<prefix>`.
 */
function RuleTable<R extends object>({
  draft,
  rules,
  setRules,
  prefix,
  errorStep,
  readOnly,
  columns,
  onEdit,
}: {
  draft: PolicyDraft;
  rules: R[];
  setRules: (rules: R[]) => void;
  prefix: string;
  errorStep: PolicyStep;
  readOnly: boolean;
  columns: ColumnsType<R & { index: number }>;
  onEdit?: (index: number) => void;
}) {
  const t = useT();
  const { token } = theme.useToken();
  const { stepError, disabled } = draft;
  const rowPrefix = readOnly ? `review-${prefix}` : prefix;
  const shown: ColumnsType<R & { index: number }> = [
    { title: t('tdePolicy:fields.order'), dataIndex: 'index', render: (i: number) => i + 1, width: 70 },
    ...columns,
    ...(readOnly
      ? []
      : [
          {
            title: t('common:actions.operations'),
            render: (_: unknown, r: R & { index: number }) => (
              <Space size={0} wrap>
                <OrderButtons
                  list={rules}
                  index={r.index}
                  set={setRules}
                  prefix={prefix}
                  disabled={disabled}
                />
                {onEdit && (
                  <Button
                    size="small"
                    type="link"
                    disabled={disabled}
                    data-testid={`${prefix}-edit-${r.index}`}
                    onClick={() => onEdit(r.index)}
                  >
                    {t('tdePolicy:actions.edit')}
                  </Button>
                )}
                <Button
                  size="small"
                  type="link"
                  danger
                  disabled={disabled}
                  data-testid={`${prefix}-remove-${r.index}`}
                  onClick={() => setRules(rules.filter((_, i) => i !== r.index))}
                >
                  {t('tdePolicy:actions.remove')}
                </Button>
              </Space>
            ),
          },
        ]),
  ];
  return (
    <Table
      size="small"
      rowKey="index"
      pagination={false}
      scroll={{ x: 'max-content' }}
      data-testid={`${rowPrefix}-table`}
      locale={{ emptyText: t('tdePolicy:noRules') }}
      columns={shown}
      dataSource={rules.map((r, index) => ({ ...r, index }))}
      onRow={(r) =>
        ({
          'data-testid': `${rowPrefix}-row-${r.index}`,
          style:
            stepError?.step === errorStep && stepError.row === r.index
              ? { background: token.colorErrorBg }
              : undefined,
        }) as HTMLAttributes<HTMLElement>
      }
    />
  );
}

interface TableProps {
  draft: PolicyDraft;
  options: PolicyOptions;
  /** The review step's copy: no order or edit buttons. */
  readOnly: boolean;
}

/** The security rules of the policy, in order, with their edit buttons unless read-only. */
export function SecurityRuleTable({
  draft,
  options,
  readOnly,
  onEdit,
}: TableProps & { onEdit?: (index: number) => void }) {
  const t = useT();
  const setTag = (setId: string | null, exclude: boolean) =>
    setId ? (
      <Tag color={exclude ? 'red' : undefined}>
        {exclude ? '¬ ' : ''}
        {options.setName(setId)}
      </Tag>
    ) : (
      <Typography.Text type="secondary">{t('tdePolicy:fields.any')}</Typography.Text>
    );
  return (
    <RuleTable<Rule>
      draft={draft}
      rules={draft.rules}
      setRules={draft.setRules}
      prefix="rule"
      errorStep="rules"
      readOnly={readOnly}
      onEdit={onEdit}
      columns={[
        { title: t('tdePolicy:fields.userSet'), render: (_, r) => setTag(r.user_set_id, r.exclude_user_set) },
        {
          title: t('tdePolicy:fields.processSet'),
          render: (_, r) => setTag(r.process_set_id, r.exclude_process_set),
        },
        {
          title: t('tdePolicy:fields.resourceSet'),
          render: (_, r) => setTag(r.resource_set_id, r.exclude_resource_set),
        },
        { title: t('tdePolicy:fields.actions'), dataIndex: 'actions', render: (a: string[]) => a.join(', ') },
        {
          title: t('tdePolicy:fields.effects'),
          dataIndex: 'effects',
          render: (e: PolicyEffect[]) => e.map((effect) => t(`tdePolicy:effects.${effect}`)).join(', '),
        },
      ]}
    />
  );
}

/** The key rules of a standard policy, in order, with their buttons unless read-only. */
export function KeyRuleTable({ draft, options, readOnly }: TableProps) {
  const t = useT();
  return (
    <RuleTable<KeyRule>
      draft={draft}
      rules={draft.keyRules}
      setRules={draft.setKeyRules}
      prefix="key-rule"
      errorStep="keys"
      readOnly={readOnly}
      columns={[
        {
          title: t('tdePolicy:fields.resourceSet'),
          render: (_, r) =>
            r.resource_set_id ? (
              <Tag>{options.setName(r.resource_set_id)}</Tag>
            ) : (
              t('tdePolicy:fields.allFiles')
            ),
        },
        { title: t('tdePolicy:fields.key'), render: (_, r) => options.keyName(r.key_id) },
      ]}
    />
  );
}
