import { useRef, useState, type CSSProperties } from 'react';
import { UploadOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Typography } from 'antd';
import { useT } from '../i18n/i18n';

const pemStyle: CSSProperties = { fontFamily: 'monospace', fontSize: 12 };
// Chromium masks a textarea like a password field (a private key is never shown back anyway).
const maskedStyle = { ...pemStyle, WebkitTextSecurity: 'disc' } as CSSProperties;

/** A chosen file as the field keeps it: text, or Base64 of a binary file. */
export interface ReadFile {
  content: string;
  binary: boolean;
}

const readText = async (file: Blob): Promise<ReadFile> => ({ content: await file.text(), binary: false });

interface PemInputProps {
  value?: string;
  onChange?: (value: string) => void;
  placeholder?: string;
  /** `accept` of the file chooser. */
  accept: string;
  testId: string;
  rows?: number;
  /** A private key: masked like a password. */
  masked?: boolean;
  /** How a chosen file becomes the value (default: its text). */
  read?: (file: Blob) => Promise<ReadFile>;
}

/** PEM pasted or read from a chosen file (a form control). */
export function PemInput({
  value,
  onChange,
  placeholder,
  accept,
  testId,
  rows = 6,
  masked = false,
  read = readText,
}: PemInputProps) {
  const t = useT();
  const chooser = useRef<HTMLInputElement>(null);
  const [loaded, setLoaded] = useState<string | null>(null);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    const got = await read(file);
    setLoaded(
      got.binary
        ? t('common:file.binary', { name: file.name })
        : t('common:file.loaded', { name: file.name }),
    );
    onChange?.(got.content);
  };

  return (
    <Flex vertical gap={6}>
      <Input.TextArea
        value={value}
        onChange={(event) => {
          setLoaded(null);
          onChange?.(event.target.value);
        }}
        placeholder={placeholder}
        autoSize={{ minRows: rows, maxRows: 14 }}
        autoComplete="off"
        spellCheck={false}
        style={masked ? maskedStyle : pemStyle}
        data-testid={testId}
      />
      <Flex gap={8} align="center" wrap>
        <Button
          icon={<UploadOutlined />}
          onClick={() => chooser.current?.click()}
          data-testid={`${testId}-choose`}
        >
          {t('common:file.choose')}
        </Button>
        {loaded && (
          <Typography.Text type="secondary" data-testid={`${testId}-loaded`}>
            {loaded}
          </Typography.Text>
        )}
        <input
          ref={chooser}
          type="file"
          accept={accept}
          style={{ display: 'none' }}
          data-testid={`${testId}-file`}
          onChange={(event) => {
            const input = event.currentTarget;
            void choose(input.files?.[0]).finally(() => {
              input.value = '';
            });
          }}
        />
      </Flex>
    </Flex>
  );
}
