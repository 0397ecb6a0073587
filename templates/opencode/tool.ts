// {{ header }}
// Do not edit: regenerate with `{{ command }}`.
import { tool } from "@opencode-ai/plugin"
import { runTool, type ExecSpec } from {{ runtime_import }}
import { SHARED } from {{ shared_import }}
{%- if !constants.is_empty() %}

// The run's context, baked in at generation time.
{%- for c in constants %}
const {{ c.name }} = {{ c.value }}
{%- endfor %}
const CONTEXT: Record<string, unknown> = { {% for c in constants %}{{ c.key }}: {{ c.name }}{% if !loop.last %}, {% endif %}{% endfor %} }
{%- endif %}
{%- for t in tools %}

const {{ t.spec_name }}: ExecSpec = {{ t.spec }}
{% if let Some(export) = t.export %}
const {{ t.local }} = tool({
{%- else %}
export default tool({
{%- endif %}
  description: {{ t.description }},
  args: {
{%- for a in t.args %}
    {{ a.key }}: {{ a.schema }},
{%- endfor %}
  },
  async execute(args, ctx) {
    return runTool({{ t.spec_name }}, {% if constants.is_empty() %}{}{% else %}CONTEXT{% endif %}, args, ctx, SHARED)
  },
})
{%- if let Some(export) = t.export %}
export { {{ t.local }} as {{ export }} }
{%- endif %}
{%- endfor %}
