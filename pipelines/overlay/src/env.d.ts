// esbuild bundles the CSS an entry imports; tell the type checker such imports exist.
declare module "*.css";
