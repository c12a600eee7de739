fn main() {
    println!("tengen");
}
