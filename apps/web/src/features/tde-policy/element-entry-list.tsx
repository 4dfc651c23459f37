import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Form } from 'antd';

/** One entry list of the form: rows of fields, a remove button each, an add button. */
export function EntryList({
  name,
  disabled,
  addLabel,
  fields,
  empty,
}: {
  name: string;
  disabled: boolean;
  addLabel: string;
  fields: (index: number) => React.ReactNode;
  empty: object;
}) {
  return (
    <Form.List name={name}>
      {(rows, { add, remove }) => (
        <Flex vertical gap={8}>
          {rows.map((row) => (
            <Flex key={row.key} gap={8} wrap align="start" data-testid={`entry-${name}-${row.name}`}>
              {fields(row.name)}
              {!disabled && (
                <Button
                  icon={<DeleteOutlined />}
                  onClick={() => remove(row.name)}
                  aria-label="remove"
                  data-testid={`entry-remove-${name}-${row.name}`}
                />
              )}
            </Flex>
          ))}
          {!disabled && (
            <Button icon={<PlusOutlined />} onClick={() => add(empty)} data-testid={`entry-add-${name}`}>
              {addLabel}
            </Button>
          )}
        </Flex>
      )}
    </Form.List>
  );
}
