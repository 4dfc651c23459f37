import type { ReactNode } from 'react';
import { Form, Switch } from 'antd';

/** A form's on/off field: a labelled switch bound to a boolean, with a hint below or as a tooltip. */
export function SwitchField({
  name,
  label,
  extra,
  tooltip,
  testId,
}: {
  name: string;
  label: ReactNode;
  extra?: ReactNode;
  tooltip?: ReactNode;
  testId: string;
}) {
  return (
    <Form.Item name={name} label={label} valuePropName="checked" extra={extra} tooltip={tooltip}>
      <Switch data-testid={testId} />
    </Form.Item>
  );
}
