//! A JSON object writer that keeps fields in the order they are added, so every record
//! of a batch reads the same way (`serde_json`'s map would sort them).

use serde_json::Value;

/// An object under construction.
#[derive(Default)]
pub struct Obj {
    fields: Vec<(String, String)>,
}

impl Obj {
    /// An empty object.
    pub fn new() -> Obj {
        Obj::default()
    }

    /// Adds a field with any JSON value.
    pub fn put(&mut self, key: &str, v: impl Into<Value>) -> &mut Obj {
        self.fields.push((key.to_string(), v.into().to_string()));
        self
    }

    /// Adds a field holding an array of objects.
    pub fn put_objs(&mut self, key: &str, os: &[Obj]) -> &mut Obj {
        let items: Vec<String> = os.iter().map(Obj::render).collect();
        self.fields
            .push((key.to_string(), format!("[{}]", items.join(","))));
        self
    }

    /// The object as one line of JSON.
    pub fn render(&self) -> String {
        let body: Vec<String> = self
            .fields
            .iter()
            .map(|(k, v)| format!("{}:{v}", Value::from(k.as_str())))
            .collect();
        format!("{{{}}}", body.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_escaping() {
        let mut inner = Obj::new();
        inner.put("a", 1);
        let mut o = Obj::new();
        o.put("z", "q\"uote")
            .put("a", vec!["x", "▲"])
            .put_objs("list", &[inner])
            .put("n", Value::Null);
        let s = o.render();
        assert_eq!(
            s,
            r#"{"z":"q\"uote","a":["x","▲"],"list":[{"a":1}],"n":null}"#
        );
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["z"], "q\"uote");
    }
}
