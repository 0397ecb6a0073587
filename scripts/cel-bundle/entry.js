// What the TypeScript runtime uses of @bufbuild/cel (templates/opencode/runtime.ts, "Computed data").
export { celEnv, parse, plan, celMethod, CelScalar, listType, isCelList, isCelMap, isCelUint, isCelError } from "@bufbuild/cel"
export { strings } from "@bufbuild/cel/ext"
