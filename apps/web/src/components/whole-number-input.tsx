import { InputNumber, type InputNumberProps } from 'antd';

export type WholeNumberInputProps = Omit<InputNumberProps<number>, 'min' | 'max' | 'precision'>;

/**
 * A whole number, as wide as its form column; the props (a form item's value and onChange,
 * disabled, data-testid) go to the input. It takes no `min`, `max` or `precision`: with them antd
 * keeps a number out of range to itself, or rounds a fraction, without a word, and the form would
 * send the value from before. Its form item's rule says the range instead (`WholeNumberField`).
 */
export function WholeNumberInput(props: WholeNumberInputProps) {
  return <InputNumber style={{ width: '100%' }} {...props} />;
}
