/** The configured logo (a data URL from the `logo` entry), or the built-in key mark. */
export function AppLogo({
  src,
  size = 32,
  alt,
  testId,
}: {
  src?: string | undefined;
  size?: number;
  alt: string;
  testId?: string;
}) {
  if (src && src.startsWith('data:image/')) {
    return (
      <img
        src={src}
        alt={alt}
        width={size}
        height={size}
        style={{ objectFit: 'contain' }}
        data-testid={testId}
      />
    );
  }
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" role="img" aria-label={alt} data-testid={testId}>
      <rect width="32" height="32" rx="7" fill="currentColor" opacity="0.15" />
      <circle cx="12" cy="16" r="5.5" fill="none" stroke="currentColor" strokeWidth="2.5" />
      <path d="M17.5 16h9M23 16v4M26 16v3" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
    </svg>
  );
}
