import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Checkbox, Flex, Input, Select, Space, Switch, Typography } from 'antd';
import { cteEncryptionModes, type UsageName } from '@ksp/contracts';
import { useT } from '../../i18n/i18n';
import { DEFAULT_CTE, MAX_LABELS, usageWordOf, type CteAttributes, type LabelRow } from './key-model';

/**
 * Form controls of the key forms. Each is a controlled input (`value` / `onChange`), so an
 * antd `Form.Item` drives it like any other control.
 */

interface ControlProps<T> {
  value?: T;
  onChange?: (value: T) => void;
  disabled?: boolean;
}

/** Key/value labels, one row each. */
export function LabelsInput({ value, onChange, disabled }: ControlProps<LabelRow[]>) {
  const t = useT();
  const rows = value ?? [];
  const set = (next: LabelRow[]) => onChange?.(next);
  const edit = (index: number, patch: Partial<LabelRow>) =>
    set(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Flex vertical gap={8} data-testid="key-labels">
      {rows.map((row, index) => (
        <Flex key={index} gap={8} align="center">
          <Input
            aria-label={t('keys:form.labelKey')}
            placeholder={t('keys:form.labelKey')}
            value={row.key}
            maxLength={64}
            disabled={disabled}
            onChange={(event) => edit(index, { key: event.target.value })}
            data-testid={`label-key-${index}`}
          />
          <Input
            aria-label={t('keys:form.labelValue')}
            placeholder={t('keys:form.labelValue')}
            value={row.value}
            maxLength={256}
            disabled={disabled}
            onChange={(event) => edit(index, { value: event.target.value })}
            data-testid={`label-value-${index}`}
          />
          <Button
            icon={<DeleteOutlined />}
            aria-label={t('keys:form.removeLabel')}
            disabled={disabled}
            onClick={() => set(rows.filter((_row, i) => i !== index))}
          />
        </Flex>
      ))}
      <Button
        type="dashed"
        icon={<PlusOutlined />}
        disabled={disabled || rows.length >= MAX_LABELS}
        onClick={() => set([...rows, { key: '', value: '' }])}
        data-testid="label-add"
        style={{ alignSelf: 'flex-start' }}
      >
        {t('keys:form.addLabel')}
      </Button>
    </Flex>
  );
}

/** TDE (CTE) attributes: off (null), or versioned / persistent on client / encryption mode. */
export function CteInput({ value, onChange, disabled }: ControlProps<CteAttributes | null>) {
  const t = useT();
  const cte = value ?? null;
  const set = (next: CteAttributes | null) => onChange?.(next);
  return (
    <Flex vertical gap={8} data-testid="key-cte">
      <Space>
        <Switch
          checked={cte !== null}
          disabled={disabled}
          onChange={(on) => set(on ? DEFAULT_CTE : null)}
          data-testid="cte-enabled"
          aria-label={t('keys:form.cte')}
        />
        <Typography.Text type="secondary">{t('keys:form.cteHint')}</Typography.Text>
      </Space>
      {cte && (
        <Flex vertical gap={8} style={{ paddingInlineStart: 8 }}>
          <Checkbox
            checked={cte.versioned}
            disabled={disabled}
            onChange={(event) => set({ ...cte, versioned: event.target.checked })}
            data-testid="cte-versioned"
          >
            {t('keys:form.cteVersioned')}
          </Checkbox>
          <Checkbox
            checked={cte.persistent_on_client}
            disabled={disabled}
            onChange={(event) => set({ ...cte, persistent_on_client: event.target.checked })}
            data-testid="cte-persistent"
          >
            {t('keys:form.ctePersistent')}
          </Checkbox>
          <Flex vertical gap={4}>
            <Typography.Text>{t('keys:form.cteMode')}</Typography.Text>
            <Select
              value={cte.encryption_mode}
              disabled={disabled}
              onChange={(mode) => set({ ...cte, encryption_mode: mode })}
              options={cteEncryptionModes.map((mode) => ({ value: mode, label: t(`keys:modes.${mode}`) }))}
              data-testid="cte-mode"
              aria-label={t('keys:form.cteMode')}
            />
          </Flex>
        </Flex>
      )}
    </Flex>
  );
}

/** The usage checkboxes, limited to what the chosen algorithm and profile allow. */
export function UsageInput({
  value,
  onChange,
  allowed,
}: ControlProps<UsageName[]> & { allowed: readonly UsageName[] }) {
  const t = useT();
  return (
    <Checkbox.Group value={value ?? []} onChange={(checked) => onChange?.(checked)} data-testid="key-usage">
      <Flex wrap gap={8}>
        {allowed.map((name) => (
          <Checkbox key={name} value={name} data-testid={`usage-${name}`}>
            {t(`keys:usage.${usageWordOf(name)}`)}
          </Checkbox>
        ))}
      </Flex>
    </Checkbox.Group>
  );
}
