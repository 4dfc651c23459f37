import { InputNumber, type InputNumberProps } from 'antd';

export interface WholeNumberInputProps extends Omit<InputNumberProps<number>, 'min' | 'max' | 'precision'> {
  /** The least and the greatest number allowed (a schema's limits). */
  range: { min?: number | undefined; max?: number | undefined };
}

/**
 * A whole number within `range`, as wide as its form column; the other props (a form item's
 * value and onChange, disabled, data-testid) go to the input.
 */
export function WholeNumberInput({ range, ...props }: WholeNumberInputProps) {
  return <InputNumber min={range.min} max={range.max} precision={0} style={{ width: '100%' }} {...props} />;
}
