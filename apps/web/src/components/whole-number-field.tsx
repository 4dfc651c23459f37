import type { CSSProperties, ReactNode } from 'react';
import { Form } from 'antd';
import type { Rule } from 'antd/es/form';
import { i18n } from '../i18n/i18n';
import { requiredRule } from './schema-rules';
import { WholeNumberInput } from './whole-number-input';

interface WholeNumberFieldProps {
  /** The form's field, or its path in a nested value (`['ldt_qos', 'cpu_percent']`, `[0, 'port']` in a list). */
  name: string | readonly (string | number)[];
  label: string;
  /** The least and the greatest number allowed (a schema's limits). */
  range: { min?: number | undefined; max?: number | undefined };
  /** What is said of a number out of `range` (default: from <min> to <max>); of none, "<label> is required". */
  message?: string;
  extra?: ReactNode;
  /** Rules checked after the range (one across fields). */
  rules?: Rule[];
  dependencies?: string[] | undefined;
  disabled?: boolean;
  /** Left empty, the field is not asked for (the value is null); a number typed is still checked. */
  optional?: boolean;
  /** The form item's style (a least width among fields side by side). */
  style?: CSSProperties;
  testId: string;
}

/** A form's whole number within a range (required unless `optional`), as wide as its column. */
export function WholeNumberField({
  name,
  label,
  range,
  message,
  extra,
  rules = [],
  dependencies,
  disabled,
  optional = false,
  style,
  testId,
}: WholeNumberFieldProps) {
  return (
    <Form.Item
      name={typeof name === 'string' ? name : [...name]}
      label={label}
      extra={extra}
      style={style}
      rules={[
        ...(optional ? [] : [requiredRule(label)]),
        {
          type: 'integer',
          min: range.min,
          max: range.max,
          message: message ?? i18n.t('common:validation.wholeNumberRange', { label, ...range }),
        },
        ...rules,
      ]}
      dependencies={dependencies}
    >
      <WholeNumberInput disabled={disabled} data-testid={testId} />
    </Form.Item>
  );
}
