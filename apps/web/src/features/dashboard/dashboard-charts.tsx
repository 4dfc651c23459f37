/**
 * The dashboard's charts (recharts). Loaded with React.lazy from the dashboard page only, so
 * the chart library sits in a chunk of its own and no other page downloads it.
 */
import { theme } from 'antd';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

export interface ChartSeries {
  key: string;
  label: string;
}

/** antd's palette for the series, in order. */
function usePalette(): string[] {
  const { token } = theme.useToken();
  return [
    token.colorPrimary,
    token.colorSuccess,
    token.colorWarning,
    token.colorError,
    token['purple-6'],
    token['cyan-6'],
    token['magenta-6'],
    token.colorTextTertiary,
  ];
}

/** Operations over time: one line per class. */
export function OperationsChart({
  points,
  series,
  height = 260,
}: {
  points: ({ label: string } & Record<string, number | string>)[];
  series: ChartSeries[];
  height?: number;
}) {
  const palette = usePalette();
  const { token } = theme.useToken();
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={token.colorBorderSecondary} strokeDasharray="3 3" />
        <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={24} />
        <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={40} />
        <Tooltip />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.map((s, i) => (
          <Line
            key={s.key}
            type="monotone"
            dataKey={s.key}
            name={s.label}
            stroke={palette[i % palette.length]}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}

/** Counts per category as bars (keys by algorithm family); a bar click reports its entry. */
export function CategoryChart({
  data,
  height = 220,
  onSelect,
}: {
  data: { key: string; label: string; count: number }[];
  height?: number;
  onSelect?: (key: string) => void;
}) {
  const palette = usePalette();
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <XAxis dataKey="label" tick={{ fontSize: 12 }} interval={0} />
        <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={40} />
        <Tooltip />
        <Bar
          dataKey="count"
          isAnimationActive={false}
          cursor={onSelect ? 'pointer' : undefined}
          onClick={(entry: { payload?: { key?: string } }) => {
            if (entry.payload?.key) onSelect?.(entry.payload.key);
          }}
        >
          {data.map((d, i) => (
            <Cell key={d.key} fill={palette[i % palette.length]} />
          ))}
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
