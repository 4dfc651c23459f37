/** A key component in groups of four characters, for reading aloud and copying by hand. */
export function groupComponent(value: string, size = 4): string {
  return (value.match(new RegExp(`.{1,${size}}`, 'g')) ?? []).join(' ');
}
