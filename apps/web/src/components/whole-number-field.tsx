import type { ReactNode } from 'react';
import { Form } from 'antd';
import type { Rule } from 'antd/es/form';
import { i18n } from '../i18n/i18n';
import { requiredRule } from './schema-rules';
import { WholeNumberInput } from './whole-number-input';

interface WholeNumberFieldProps {
  name: string;
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
  testId: string;
}

/** A form's required whole number within a range, as wide as its column. */
export function WholeNumberField({
  name,
  label,
  range,
  message,
  extra,
  rules = [],
  dependencies,
  disabled,
  testId,
}: WholeNumberFieldProps) {
  return (
    <Form.Item
      name={name}
      label={label}
      extra={extra}
      rules={[
        requiredRule(label),
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
      <WholeNumberInput range={range} disabled={disabled} data-testid={testId} />
    </Form.Item>
  );
}
