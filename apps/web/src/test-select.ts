import { fireEvent, screen, within } from '@testing-library/react';

/** The combobox of the antd Select whose test id is `testId`, opened. */
function openSelect(testId: string): HTMLElement {
  const select = screen.getByTestId(testId);
  const combobox = within(select.closest('.ant-select') ?? select).getByRole('combobox');
  fireEvent.mouseDown(combobox);
  return combobox;
}

/** Opens an antd Select by its test id and picks the option with this text. */
export async function choose(testId: string, text: string): Promise<void> {
  openSelect(testId);
  const options = await screen.findAllByTitle(text);
  fireEvent.click(options.at(-1)!);
}

/** Opens a Select by its test id and reads the texts of its options. */
export function optionTexts(testId: string): string[] {
  const combobox = openSelect(testId);
  const listId = combobox.getAttribute('aria-controls') ?? combobox.getAttribute('aria-owns') ?? '';
  const dropdown = document.getElementById(listId)?.closest('.ant-select-dropdown');
  return [...(dropdown?.querySelectorAll('.ant-select-item-option') ?? [])].map(
    (item) => item.textContent ?? '',
  );
}
