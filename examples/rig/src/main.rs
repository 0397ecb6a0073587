//! The ix tools as a rig `ToolSet`, from the module `ixgen generate rust` writes
//! (`generated/rust/ix_tools.rs`, committed and checked by ixgen's tests): lists their
//! definitions, then calls a tool by name with JSON arguments, as an agent's model would. No
//! model is called.
//!
//! ```sh
//! cargo run -- ix-locate '{"pattern": "UserService"}'
//! ```

// Generated code is not rustfmt's to rewrite: `ixgen check` compares it with what it wrote.
#[rustfmt::skip]
#[path = "../../../generated/rust/ix_tools.rs"]
mod ix_tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env = ix_tools::Env {
        cwd: Some(std::env::current_dir()?),
        // No confirmation channel here: a tool with `confirm` refuses to run.
        ask: None,
    };
    let tools = ix_tools::toolset(&env);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        for name in ix_tools::TOOL_NAMES {
            println!("{name}");
        }
        for def in tools.get_tool_definitions().await? {
            println!("{}", serde_json::to_string(&def)?);
        }
        return Ok(());
    };
    let json = args.get(1).cloned().unwrap_or_else(|| "{}".to_string());
    match tools.call(name, json).await {
        Ok(answer) => println!("{answer}"),
        // A failed tool (or invalid arguments) answers the runtime's Markdown, as MCP's isError.
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
    Ok(())
}
